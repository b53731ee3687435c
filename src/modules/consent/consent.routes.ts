import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import { ipPrefix } from '../../platform/http/ip.ts';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { siteIdempotencyOwner } from '../../platform/idempotency/idempotency.scope.ts';
import type { DecisionOutcome, Metrics } from '../../platform/metrics/metrics.ts';
import { type AnalyticsService, ImpressionBody } from '../analytics/analytics.service.ts';
import { resolveRegime } from '../regions/regions.service.ts';
import { preflightRoute, requireAllowedOrigin } from './site-origin-hooks.ts';
import { locationOf, publicProblems, siteOf, tags } from './site-requests.ts';
import {
  PreferencesBody,
  PreferencesProblem,
  PreferencesReceipt,
  RegionQuery,
  SiteParams,
} from './sites.schemas.ts';
import type { SitesService } from './sites.service.ts';

const IMPRESSIONS = '/v1/public/sites/:siteKey/impressions';

/**
 * The impression may come as text/plain holding JSON: a CORS-simple request, which a browser sends
 * without a preflight, so counting one costs the page one request, not two (the SDK sends it so).
 * Parsed by Fastify's own JSON parser (which refuses `__proto__` keys), for this one route; every
 * other route keeps answering text/plain with 415 (app.ts).
 */
function acceptTextPlainJson(app: App, url: string) {
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.url !== url) {
      return done(new AppError('unsupported_media_type', 'Send the body as application/json.'), undefined);
    }
    json(request, body as string, done);
  });
}

/**
 * What a customer's pages post: their visitors' decisions (preferences) and banner impressions.
 * Only browsers on a registered origin may post (a JSON POST has its CORS preflight; the SDK sends
 * impressions as text/plain, which has none, and the Origin is checked all the same); `publicHooks`
 * rate limit them and resolve their site first.
 */
export function siteWritesRoutes(
  app: App,
  deps: {
    sites: Pick<SitesService, 'commitStaged' | 'recordPreferences' | 'regionOf' | 'outcomeOf' | 'receiptUrl'>;
    analytics: Pick<AnalyticsService, 'countImpression'>;
    metrics: Pick<Metrics, 'decisionRecorded' | 'impressionCounted'>;
    publicHooks: onRequestHookHandler[];
  },
) {
  const { sites, analytics, metrics, publicHooks } = deps;
  // A decision this process recorded, counted once its 201 is sent (a replayed 201 runs no handler).
  const outcomes = new WeakMap<FastifyRequest, DecisionOutcome>();

  const preflight = (url: string, operationId: string) => preflightRoute(app, url, operationId, publicHooks);

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
          401: Problem,
          403: Problem,
          409: Problem,
          413: Problem,
          415: Problem,
          422: PreferencesProblem,
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
  preflight(IMPRESSIONS, 'preflightImpressions');
  acceptTextPlainJson(app, IMPRESSIONS);

  app.post(
    IMPRESSIONS,
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
        body: {
          content: {
            'application/json': { schema: ImpressionBody },
            'text/plain': { schema: ImpressionBody },
          },
        },
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
      // The body's schema is per media type, which TypeBox's inference does not follow.
      const { configVersion } = request.body as Static<typeof ImpressionBody>;
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
