import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { findPlaceholder, placeholderProblem } from '../../platform/http/placeholders.ts';
import { Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { appCaller } from './app-callers.ts';
import { SITE_KEY } from './config-response.ts';
import { allowedOrigin, setCorsHeaders, setPreflightHeaders } from './cors.ts';
import { type AppCaller, SiteParams } from './sites.schemas.ts';
import type { Site, SitesService } from './sites.service.ts';

/**
 * What every public site route shares, this module's and other modules' (consent, handoffs,
 * identity): the site its first hook resolves, the Origin check and CORS preflight of a public POST,
 * the caller the evidence keeps, and the route's tag and problems.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The site of a public `:siteKey` route, set by its first hook; null elsewhere. */
    site: Site | null;
  }
}

/**
 * What every public site route shares: its OpenAPI tag and the problems any of them may answer
 * (on an app channel, 403 for a caller that is not one of its apps, 422 for malformed app headers).
 */
export const tags = ['Public site endpoints'];
export const publicProblems = { 403: Problem, 404: Problem, 422: Problem, 429: Problem };

/** The site a public route's first hook resolved (the route never runs without one). */
export const siteOf = (request: FastifyRequest) => request.site as Site;

/** Where the visitor of a public request is, as the sites service resolves it. */
export function locationOf(request: FastifyRequest) {
  const { region } = request.query as { region?: string };
  return { declared: region, headers: request.headers, ip: request.ip };
}

/**
 * An app channel answers its apps alone, on every public route (docs/guides/apps.md): the app is
 * checked here, where the site is resolved, so no route can forget it. A web channel's routes
 * check the Origin themselves (the reads answer any page; the writes, registered origins only).
 */
function callerError(request: FastifyRequest, site: Site): AppError | undefined {
  if (site.channel.platform !== 'app') return undefined;
  const caller = appCaller(site, request.headers);
  if (caller instanceof AppError) return caller;
  request.consentApp = caller;
  return undefined;
}

/**
 * The hook that resolves a public route's site (404 for unknown or archived sites, before anything
 * else). A callback hook: a cached site (nearly every request) is resolved without a promise.
 */
export function siteResolver(sites: Pick<SitesService, 'cachedSite' | 'resolve'>): onRequestHookHandler {
  return (request, _reply, done) => {
    const { siteKey } = request.params as { siteKey: string };
    if (!SITE_KEY.test(siteKey)) {
      // `site_test_…` copied from the docs: said so, before the lookup that would only say 404.
      const placeholder = findPlaceholder(request.params, null);
      return done(placeholder ? placeholderProblem(placeholder) : notFound('site'));
    }
    const cached = sites.cachedSite(siteKey);
    if (cached) {
      request.site = cached;
      return done(callerError(request, cached));
    }
    sites.resolve(siteKey).then((site) => {
      request.site = site;
      done(callerError(request, site));
    }, done);
  };
}

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
  // An app channel's caller was checked with its site (siteResolver, above): an app, no CORS.
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
