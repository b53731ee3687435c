import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { AppError } from '../../platform/http/errors.ts';
import { Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import type { AppCaller } from './app-callers.ts';
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

/**
 * Who made a public call, as the evidence keeps it: the browser's Origin (registered: the route's
 * requireAllowedOrigin checked it), or on an app channel the app (docs/guides/apps.md).
 */
export function callerOf(request: FastifyRequest): { origin: string | null; app: AppCaller | null } {
  if (request.consentApp) return { origin: null, app: request.consentApp };
  return { origin: new URL(request.headers.origin as string).origin, app: null };
}

/** The route's onRequest hook: 403 unless the Origin is registered (or an app's call); CORS headers for it. */
export const requireAllowedOrigin: onRequestAsyncHookHandler = async (request, reply) => {
  // An app channel's caller was checked with its site (site-requests.ts): an app, no CORS.
  if (request.consentApp) return;
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
          ...publicProblems,
          204: Type.Null({ description: 'Preflight accepted' }),
          403: Problem,
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
