import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { notFound } from '../../platform/http/errors.ts';
import { Problem } from '../../platform/http/schemas.ts';
import { SITE_KEY } from './config-response.ts';
import type { Site } from './site-cache.ts';
import type { SitesService } from './sites.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The site of a public `:siteKey` route, set by its first hook; null elsewhere. */
    site: Site | null;
  }
}

/** What every public site route shares: its OpenAPI tag and the problems any of them may answer. */
export const tags = ['Public site endpoints'];
export const publicProblems = { 404: Problem, 429: Problem };

/** The site a public route's first hook resolved (the route never runs without one). */
export const siteOf = (request: FastifyRequest) => request.site as Site;

/** Where the visitor of a public request is, as the sites service resolves it. */
export function locationOf(request: FastifyRequest) {
  const { region } = request.query as { region?: string };
  return { declared: region, headers: request.headers, ip: request.ip };
}

/**
 * The hook that resolves a public route's site (404 for unknown or archived sites, before anything
 * else). A callback hook: a cached site (nearly every request) is resolved without a promise.
 */
export function siteResolver(sites: Pick<SitesService, 'cachedSite' | 'resolve'>): onRequestHookHandler {
  return (request, _reply, done) => {
    const { siteKey } = request.params as { siteKey: string };
    if (!SITE_KEY.test(siteKey)) return done(notFound('site'));
    const cached = sites.cachedSite(siteKey);
    if (cached) {
      request.site = cached;
      return done();
    }
    sites.resolve(siteKey).then((site) => {
      request.site = site;
      done();
    }, done);
  };
}
