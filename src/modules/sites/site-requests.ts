import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { findPlaceholder, placeholderProblem } from '../../platform/http/placeholders.ts';
import { Problem } from '../../platform/http/schemas.ts';
import { appCaller } from './app-callers.ts';
import { SITE_KEY } from './config-response.ts';
import type { Site } from './site-cache.ts';
import type { SitesService } from './sites.service.ts';

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
