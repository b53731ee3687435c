import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { notModified } from '../../platform/http/conditional.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { ipPrefix } from '../../platform/http/ip.ts';
import { Envelope, envelope, NotModified, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { siteIdempotencyOwner } from '../../platform/idempotency/idempotency.scope.ts';
import type { DecisionOutcome, Metrics } from '../../platform/metrics/metrics.ts';
import { type AnalyticsService, ImpressionBody } from '../analytics/analytics.service.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { resolveRegime } from '../regions/regions.service.ts';
import { configResponse, SITE_KEY } from './config-response.ts';
import { allowedOrigin, setCorsHeaders, setPreflightHeaders } from './cors.ts';
import { gppBundle, type SdkBundle, sdkBundle } from './sdk-bundle.ts';
import type { Site } from './site-cache.ts';
import {
  PreferencesBody,
  PreferencesReceipt,
  RegionQuery,
  SiteConfigSchema,
  SiteParams,
  Snippet,
} from './sites.schemas.ts';
import type { SitesService } from './sites.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The site of a public `:siteKey` route, set by its first hook; null elsewhere. */
    site: Site | null;
  }
}

const STATIC_CACHE_CONTROL = 'public, max-age=300';
const tags = ['Public site endpoints'];
const publicProblems = { 404: Problem, 429: Problem };
const cacheHeaders = {
  'Cache-Control': Type.String(),
  ETag: Type.String({ description: 'Send it back as If-None-Match to get a 304 when unchanged' }),
};
const configCacheHeaders = {
  ...cacheHeaders,
  Vary: Type.String({ description: 'Origin, and the trusted geo headers when GEO_COUNTRY_HEADER is set' }),
};

/** Where the visitor of a public request is, as the sites service resolves it. */
function locationOf(request: FastifyRequest) {
  const { region } = request.query as { region?: string };
  return { declared: region, headers: request.headers, ip: request.ip };
}

/**
 * The audit context of a public request refused for its site (403 origin_not_allowed): the
 * site's organization and environment, and the system as actor (there is no API key).
 */
export function siteAuditContextOf(request: FastifyRequest): AuditContext | null {
  const site = request.site;
  if (!site) return null;
  return {
    organizationId: site.channel.organizationId,
    environment: site.channel.environment,
    actor: { type: 'system', id: null },
    requestId: request.id,
    ipPrefix: ipPrefix(request.ip),
  };
}

function sendCacheable(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  type: string,
  body: string | Buffer,
) {
  reply.header('ETag', etag);
  if (notModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * The public site endpoints: the snippet, config and SDK a customer's pages load, and the endpoint their
 * visitors' decisions are posted to. No API key: each route is rate limited per site and client
 * address, and resolves its site first (404 for unknown or archived sites, before anything else).
 */
export function sitesRoutes(
  app: App,
  deps: {
    sites: SitesService;
    analytics: AnalyticsService;
    metrics: Pick<Metrics, 'decisionRecorded' | 'impressionCounted'>;
  },
) {
  const { sites, analytics, metrics } = deps;
  // A decision this process recorded, counted once its 201 is sent (a replayed 201 runs no handler).
  const outcomes = new WeakMap<FastifyRequest, DecisionOutcome>();
  app.decorateRequest('site', null);
  app.addHook('onClose', () => sites.close());

  // A callback hook: a cached site (nearly every request) is resolved without a promise.
  const resolveSite: onRequestHookHandler = (request, _reply, done) => {
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
  const publicHooks = [app.publicRateLimit, resolveSite];
  const siteOf = (request: FastifyRequest) => request.site as Site;

  /** The CORS preflight of a public POST: 204 with CORS headers for registered origins only, else 403. */
  function preflight(url: string, operationId: string) {
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

  /** Only browsers on a registered origin may record decisions; the answer carries CORS headers for them. */
  const requireAllowedOrigin: onRequestAsyncHookHandler = async (request, reply) => {
    const origin = allowedOrigin(siteOf(request), request.headers.origin);
    if (!origin) throw originNotAllowed(request);
    setCorsHeaders(reply, origin);
  };

  app.get(
    '/v1/public/sites/:siteKey/snippet',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteSnippet',
        tags,
        summary: 'The HTML that loads the SDK for this site',
        params: SiteParams,
        response: {
          200: {
            description: 'The snippet',
            headers: { 'Cache-Control': Type.String() },
            content: { 'application/json': { schema: Envelope(Snippet) } },
          },
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', STATIC_CACHE_CONTROL);
      return envelope({ html: sites.snippetHtml(siteOf(request)) });
    },
  );

  app.get(
    '/v1/public/sites/:siteKey/config',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteConfig',
        tags,
        summary:
          "What the banner shows: the current configVersion's snapshot, resolved for the visitor's region (ETag, cacheable per region)",
        params: SiteParams,
        querystring: RegionQuery,
        response: {
          200: {
            description: 'The config of the current version for the visitor’s region',
            headers: configCacheHeaders,
            content: { 'application/json': { schema: Envelope(SiteConfigSchema) } },
          },
          304: { ...NotModified, headers: configCacheHeaders },
          422: Problem,
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const { statusCode, headers, body } = configResponse(
        site,
        {
          origin: request.headers.origin,
          ifNoneMatch: request.headers['if-none-match'],
          region: sites.regionOf(site, locationOf(request)),
        },
        sites.caching,
      );
      // The body is already serialized bytes: sent as they are, past the response schema.
      return (reply as FastifyReply)
        .code(statusCode)
        .headers(headers)
        .send(body ?? undefined);
    },
  );

  /** A bundle of the browser SDK: the same site lookup, caching and ETag for each of them. */
  const sendBundle = (request: FastifyRequest, reply: FastifyReply, bundle: SdkBundle) => {
    reply.header('Cache-Control', STATIC_CACHE_CONTROL);
    return sendCacheable(request, reply, bundle.etag, 'application/javascript; charset=utf-8', bundle.source);
  };

  app.get(
    '/v1/public/sites/:siteKey/sdk.js',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getSiteSdk',
        tags,
        summary: 'The browser SDK (application/javascript)',
        params: SiteParams,
        response: {
          200: {
            description: 'The SDK',
            headers: cacheHeaders,
            content: { 'application/javascript': { schema: Type.String() } },
          },
          304: { ...NotModified, headers: cacheHeaders },
          ...publicProblems,
        },
      },
    },
    async (request, reply) => sendBundle(request, reply, sdkBundle()),
  );

  app.get(
    '/v1/public/sites/:siteKey/gpp.js',
    {
      config: { auth: 'public' },
      onRequest: publicHooks,
      schema: {
        operationId: 'getGppBundle',
        tags,
        summary:
          'The IAB GPP CMP API (application/javascript), which the SDK loads for visitors of US opt-out regions when the channel has a gppCmpId',
        params: SiteParams,
        response: {
          200: {
            description: 'The GPP bundle',
            headers: cacheHeaders,
            content: { 'application/javascript': { schema: Type.String() } },
          },
          304: { ...NotModified, headers: cacheHeaders },
          ...publicProblems,
        },
      },
    },
    async (request, reply) => sendBundle(request, reply, gppBundle()),
  );

  preflight('/v1/public/sites/:siteKey/preferences', 'preflightPreferences');

  app.post(
    '/v1/public/sites/:siteKey/preferences',
    {
      config: {
        auth: 'public',
        idempotency: {
          owner: (request) => {
            const { channel } = siteOf(request);
            // The stored 201 holds the receipt token: sealed with the visitor's own subjectId, which
            // is never stored, so only a retry of the same body (the same subjectId) opens it.
            const { subjectId } = request.body as { subjectId: string };
            return siteIdempotencyOwner(
              channel.siteKey,
              channel.organizationId,
              channel.environment,
              `subject:${subjectId}`,
            );
          },
          // The event is staged and committed with the key's record in the evidence group commit.
          commitStaged: sites.commitStaged,
        },
      },
      onRequest: [...publicHooks, requireAllowedOrigin],
      onResponse: async (request, reply) => {
        const outcome = outcomes.get(request);
        if (outcome && reply.statusCode === 201) metrics.decisionRecorded(outcome);
      },
      schema: {
        operationId: 'recordPreferences',
        tags,
        summary: "Record a visitor's consent decision as evidence",
        params: SiteParams,
        querystring: RegionQuery,
        body: PreferencesBody,
        response: {
          201: Envelope(PreferencesReceipt),
          400: Problem,
          403: Problem,
          409: Problem,
          413: Problem,
          415: Problem,
          422: Problem,
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      const userAgent = request.headers['user-agent'];
      const site = siteOf(request);
      const event = await sites.recordPreferences(
        site,
        request.body,
        {
          origin: new URL(request.headers.origin as string).origin,
          userAgent: typeof userAgent === 'string' && userAgent !== '' ? userAgent : null,
          ipPrefix: ipPrefix(request.ip),
          region: sites.regionOf(site, locationOf(request)),
          // Browsers with GPC on send it with every request (an opt-out in opt-out regions).
          secGpc: request.headers['sec-gpc'] === '1',
        },
        // With an Idempotency-Key the event is staged, and committed with the key's record.
        request.unitOfWork,
      );
      const { row } = event;
      outcomes.set(request, await sites.outcomeOf(site, row));
      reply.code(201);
      return envelope({
        id: row.id,
        recordedAt: apiDate(row.recordedAt),
        receipt: { hash: row.receiptHash, url: sites.receiptUrl(event) },
      });
    },
  );

  // One impression per banner shown, counted in the day's aggregates (nothing per visitor).
  preflight('/v1/public/sites/:siteKey/impressions', 'preflightImpressions');

  app.post(
    '/v1/public/sites/:siteKey/impressions',
    {
      // Nothing is stored per request, so there is nothing an Idempotency-Key could protect.
      config: { auth: 'public', idempotency: false },
      onRequest: [...publicHooks, requireAllowedOrigin],
      schema: {
        operationId: 'recordImpression',
        tags,
        summary: 'Count one banner impression (aggregates only: no subject id, cookie or address is kept)',
        params: SiteParams,
        querystring: RegionQuery,
        body: ImpressionBody,
        response: {
          204: Type.Null({ description: 'Counted' }),
          400: Problem,
          403: Problem,
          413: Problem,
          415: Problem,
          422: Problem,
          ...publicProblems,
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const { configVersion } = request.body;
      if (configVersion > site.config.configVersion) {
        throw validationFailed([
          { path: '/configVersion', message: 'is not a version of this site’s config' },
        ]);
      }
      const region = sites.regionOf(site, locationOf(request));
      analytics.countImpression({
        organizationId: site.channel.organizationId,
        environment: site.channel.environment,
        channelId: site.channel.id,
        region: region.code,
        regime: resolveRegime(site.config.regionRules, region.code),
        configVersion,
      });
      metrics.impressionCounted();
      return (reply as FastifyReply).code(204).send();
    },
  );
}

/**
 * A missing Origin is refused like a foreign one: browsers always send it on a cross-origin POST,
 * so its absence means a server-side caller, which should use the authenticated API instead.
 */
function originNotAllowed(request: FastifyRequest): AppError {
  return new AppError(
    'origin_not_allowed',
    request.headers.origin
      ? 'The Origin is not one of the active origins registered for this site.'
      : 'An Origin header is required: only browsers on a registered origin may call this endpoint.',
  );
}
