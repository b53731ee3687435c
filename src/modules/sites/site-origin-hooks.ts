import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { AppError } from '../../platform/http/errors.ts';
import { Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { allowedOrigin, setCorsHeaders, setPreflightHeaders } from './cors.ts';
import { publicProblems, siteOf, tags } from './site-requests.ts';
import { SiteParams } from './sites.schemas.ts';

/**
 * What a public POST of a customer's pages needs: only browsers on a registered origin may send it,
 * after a CORS preflight answered for registered origins alone.
 */

/**
 * A missing Origin is refused like a foreign one: browsers always send it on a cross-origin POST,
 * so its absence means a server-side caller, which should use the authenticated API instead.
 */
export function originNotAllowed(request: FastifyRequest): AppError {
  return new AppError(
    'origin_not_allowed',
    request.headers.origin
      ? 'The Origin is not one of the active origins registered for this site.'
      : 'An Origin header is required: only browsers on a registered origin may call this endpoint.',
  );
}

/** The route's onRequest hook: 403 unless the Origin is registered; CORS headers for it. */
export const requireAllowedOrigin: onRequestAsyncHookHandler = async (request, reply) => {
  const origin = allowedOrigin(siteOf(request), request.headers.origin);
  if (!origin) throw originNotAllowed(request);
  setCorsHeaders(reply, origin);
};

/** The CORS preflight of a public POST: 204 with CORS headers for registered origins only, else 403. */
export function preflightRoute(
  app: App,
  url: string,
  operationId: string,
  publicHooks: onRequestHookHandler[],
) {
  app.options(
    url,
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId,
        tags,
        summary: 'CORS preflight: 204 with CORS headers for registered origins only, else 403',
        params: SiteParams,
        response: {
          204: Type.Null({ description: 'Preflight accepted' }),
          403: Problem,
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      const origin = allowedOrigin(siteOf(request), request.headers.origin);
      if (!origin) throw originNotAllowed(request);
      setPreflightHeaders(reply, origin);
      return (reply as FastifyReply).code(204).send();
    },
  );
}
