import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyHandler, FastPath } from '../../platform/http/fast-path-server.ts';
import { clientAddress, requestHost, requestProtocol, type TrustProxy } from '../../platform/http/ip.ts';
import { requestIdFor } from '../../platform/http/request-id.ts';
import type { Metrics } from '../../platform/metrics/metrics.ts';
import { recordCompletion } from '../../platform/metrics/observability.ts';
import {
  handOverCountedHit,
  publicLimitKey,
  rateLimitHeaders,
} from '../../platform/rate-limit/rate-limit.hooks.ts';
import type { RateLimitDecision, RateLimiter } from '../../platform/rate-limit/rate-limiter.ts';
import { configResponse, SITE_KEY } from './config-response.ts';
import type { RequestPlace } from './decision-cookie.ts';
import type { Site, SitesService } from './sites.service.ts';

const PREFIX = '/v1/public/sites/';

/** What requestPlace (sites.service.ts) reads of a Fastify request, from the raw one, under the same trust. */
function rawRequestPlace(req: IncomingMessage, trust: TrustProxy): RequestPlace {
  const { origin } = req.headers;
  const fetchSite = req.headers['sec-fetch-site'];
  return {
    origin: typeof origin === 'string' && origin !== '' ? origin : undefined,
    host: requestHost(req, trust),
    protocol: requestProtocol(req, trust),
    secFetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
  };
}
const SUFFIX = '/config';
const ROUTE = `${PREFIX}:siteKey${SUFFIX}`;

/**
 * `GET /v1/public/sites/:siteKey/config` for a site in the cache, answered before Fastify
 * (platform/http/fast-path-server.ts): bench a measured the Fastify route at 0.42 of a bare
 * server returning the same bytes; routing, the hook chain and Fastify's per-request objects cost
 * more than this answer itself (README "Benchmarks").
 *
 * It answers what the Fastify route answers, from the same pieces: request id, the public rate
 * limit (counted once; a refusal is handed to Fastify for its 429 problem), CORS for registered
 * origins, Cache-Control, ETag and 304, and the one log line and metrics observation of every
 * request. Anything else (another method, a query string, an odd path, a site not in the cache)
 * is left to Fastify untouched.
 */
export function configFastPath(deps: {
  sites: SitesService;
  limiter: RateLimiter;
  perMinute: number;
  trust: TrustProxy;
  metrics: Metrics;
  log: FastifyBaseLogger;
}): FastPath {
  const { sites, limiter, perMinute, trust, metrics, log } = deps;

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    site: Site,
    startedAt: number,
    ip: string | undefined,
    decision: RateLimitDecision,
  ) {
    const reqId = requestIdFor(req);
    const { statusCode, headers, body } = configResponse(
      site,
      {
        origin: req.headers.origin,
        ifNoneMatch: req.headers['if-none-match'],
        // No query on this path: the region comes from the geo headers or the address
        // (synchronous, memoized).
        region: sites.regionOf(site, { declared: undefined, headers: req.headers, ip }),
        // Through the first-party path, a valid decision cookie starts its lifetime again; a channel
        // without a path (or a request without cookies) pays one comparison.
        setCookie:
          site.channel.firstPartyPath !== null && req.headers.cookie
            ? sites.decisionCookieRefresh(site, rawRequestPlace(req, trust), req.headers.cookie)
            : null,
      },
      sites.caching,
    );
    res.writeHead(statusCode, {
      'x-request-id': reqId,
      // As app.ts's onRequest hook sets on every Fastify answer.
      'x-content-type-options': 'nosniff',
      ...rateLimitHeaders(decision),
      ...headers,
    });
    if (body) res.end(body);
    else res.end();
    recordCompletion(metrics, log, {
      method: 'GET',
      route: ROUTE,
      statusCode,
      durationMs: performance.now() - startedAt,
      req: { method: 'GET', url: req.url, host: requestHost(req, trust), ip, socket: req.socket },
      reqId,
    });
  }

  // No closure is made per request on the common path (a synchronous, in-process limiter).
  function decide(
    req: IncomingMessage,
    res: ServerResponse,
    fastify: FastifyHandler,
    site: Site,
    startedAt: number,
    ip: string | undefined,
    decision: RateLimitDecision,
  ) {
    if (decision.allowed) return answer(req, res, site, startedAt, ip, decision);
    handOverCountedHit(req, decision);
    fastify(req, res);
  }

  return (req, res, fastify) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX) || !url.endsWith(SUFFIX))
      return false;
    const siteKey = url.slice(PREFIX.length, url.length - SUFFIX.length);
    if (!SITE_KEY.test(siteKey)) return false;
    const site = sites.cachedSite(siteKey);
    // An app channel's caller is checked by the Fastify route's hooks (public-site.service.ts).
    if (!site || site.channel.platform === 'app') return false;

    const startedAt = performance.now();
    const ip = clientAddress(req, trust);
    const decision = limiter.hit(publicLimitKey(siteKey, ip), perMinute);
    if (decision instanceof Promise)
      decision.then(
        (counted) => decide(req, res, fastify, site, startedAt, ip, counted),
        () => fastify(req, res),
      );
    else decide(req, res, fastify, site, startedAt, ip, decision);
    return true;
  };
}
