import { notModified } from '../../platform/http/conditional.ts';
import type { ResolvedRegion } from '../regions/regions.service.ts';
import { allowedOrigin, corsHeaders } from './cors.ts';
import { COOKIE_CACHE_CONTROL } from './decision-cookie.ts';
import { regionalConfig } from './regional-config.ts';
import type { Site } from './sites.service.ts';

/** The shape of a site key (`site_test_…`/`site_live_…`): anything else is a 404 without a query. */
export const SITE_KEY = /^site_(test|live)_[0-9A-Za-z]{1,64}$/;
const CONFIG_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What a config request says that changes the answer. */
export interface ConfigRequest {
  origin: string | string[] | undefined;
  ifNoneMatch: string | string[] | undefined;
  /** The visitor's region, resolved by the sites service (`regionOf`). */
  region: ResolvedRegion;
  /** The Set-Cookie refreshing the visitor's decision cookie (`decisionCookieRefresh`), or null. */
  setCookie: string | null;
}

/**
 * How shared caches may keep config answers, fixed by the region settings (the
 * answer depends only on the site and the resolved region, and says so to caches).
 */
export interface ConfigCaching {
  /** `Vary`: Origin (CORS), and the trusted geo headers when they are set. */
  vary: string;
  /** The trusted geo headers alone (GEO_COUNTRY_HEADER, GEO_SUBDIVISION_HEADER), when set. */
  geoHeaders: string[];
  /**
   * Whether an answer not resolved from the URL or the geo headers depends on the client address
   * (GEOIP_DATABASE is set): then no shared cache may keep it.
   */
  byAddress: boolean;
}

export function configCaching(geoHeaders: readonly string[], geoip: boolean): ConfigCaching {
  return { vary: ['Origin', ...geoHeaders].join(', '), geoHeaders: [...geoHeaders], byAddress: geoip };
}

/**
 * A minute fresh, then ten more minutes in which a cache may answer with the old config while it
 * fetches the new one (RFC 5861): a returning visitor's banner never waits on a revalidation, and
 * a change reaches every visitor within about a minute of their next page after it.
 */
const PUBLIC = 'public, max-age=60, stale-while-revalidate=600';
const PRIVATE = 'private, max-age=60, stale-while-revalidate=600';

/** The Cache-Control of an answer made for a visitor's region (the config, and sdk.js that carries it). */
export function regionalCacheControl(caching: ConfigCaching, region: ResolvedRegion): string {
  return caching.byAddress && (region.source === 'geoip' || region.source === 'unknown') ? PRIVATE : PUBLIC;
}

/**
 * The answer to `GET /v1/public/sites/:siteKey/config` for a resolved site and region, built once
 * for both paths that send it: the fast path before Fastify (config-fast-path.ts) and the Fastify
 * route (site-assets.routes.ts). Registered origins may read it from their pages (CORS); the config
 * itself is public either way. Rate-limit and request-id headers are the caller's. An answer that
 * refreshes the visitor's decision cookie is private (decision-cookie.ts), a 304 included.
 */
export function configResponse(site: Site, request: ConfigRequest, caching: ConfigCaching): ConfigResponse {
  const answer = regionalConfig(site, request.region);
  const headers: Record<string, string | number> = {
    ...corsHeaders(allowedOrigin(site, request.origin)),
    vary: caching.vary,
    'cache-control': request.setCookie ? COOKIE_CACHE_CONTROL : regionalCacheControl(caching, request.region),
    etag: answer.etag,
  };
  if (request.setCookie) headers['set-cookie'] = request.setCookie;
  if (notModified(request.ifNoneMatch, answer.etag)) return { statusCode: 304, headers, body: null };
  headers['content-type'] = CONFIG_CONTENT_TYPE;
  headers['content-length'] = answer.bytes.length;
  return { statusCode: 200, headers, body: answer.bytes };
}

export interface ConfigResponse {
  statusCode: 200 | 304;
  headers: Record<string, string | number>;
  /** The answer's bytes (200), or null (304). */
  body: Buffer | null;
}
