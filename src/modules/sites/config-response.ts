import { notModified } from '../../platform/http/conditional.ts';
import { allowedOrigin, corsHeaders } from './cors.ts';
import type { Site } from './site-cache.ts';

/** The shape of a site key (`site_test_…`/`site_live_…`): anything else is a 404 without a query. */
export const SITE_KEY = /^site_(test|live)_[0-9A-Za-z]{1,64}$/;
const CONFIG_CACHE_CONTROL = 'public, max-age=60';
const CONFIG_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What a config request says that changes the answer. */
export interface ConfigRequest {
  origin: string | string[] | undefined;
  ifNoneMatch: string | string[] | undefined;
}

export interface ConfigResponse {
  statusCode: 200 | 304;
  headers: Record<string, string | number>;
  /** The snapshot's bytes (200), or null (304). */
  body: Buffer | null;
}

/**
 * The answer to `GET /v1/public/sites/:siteKey/config` for a resolved site, built once for both
 * paths that send it: the fast path before Fastify (config-fast-path.ts) and the Fastify route
 * (sites.routes.ts). Registered origins may read it from their pages (CORS); the config itself is
 * public either way. Rate-limit and request-id headers are the caller's.
 */
export function configResponse(site: Site, request: ConfigRequest): ConfigResponse {
  const headers: Record<string, string | number> = {
    ...corsHeaders(allowedOrigin(site, request.origin)),
    'cache-control': CONFIG_CACHE_CONTROL,
    etag: site.etag,
  };
  if (notModified(request.ifNoneMatch, site.etag)) return { statusCode: 304, headers, body: null };
  headers['content-type'] = CONFIG_CONTENT_TYPE;
  headers['content-length'] = site.configBytes.length;
  return { statusCode: 200, headers, body: site.configBytes };
}
