import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, onRequestHookHandler } from 'fastify';
import { PUBLIC_BODY } from '../../platform/http/body-limits.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import { Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import type { Metrics } from '../../platform/metrics/metrics.ts';
import { type AnalyticsService, ImpressionBody } from '../analytics/analytics.service.ts';
import { visitorRegime } from '../tcf/settings/tcf-settings.service.ts';
import {
  locationOf,
  preflightRoute,
  publicProblems,
  requireAllowedOrigin,
  siteOf,
  tags,
} from './public-site.service.ts';
import { RegionQuery, SiteParams } from './sites.schemas.ts';
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
 * One impression per banner shown, counted in the day's aggregates (nothing per visitor). Only
 * browsers on a registered origin may post (the SDK sends impressions as text/plain, which has no
 * CORS preflight, and the Origin is checked all the same); `publicHooks` rate limit them and
 * resolve their site first.
 */
export function siteImpressionsRoutes(
  app: App,
  deps: {
    sites: Pick<SitesService, 'regionOf'>;
    analytics: Pick<AnalyticsService, 'countImpression'>;
    metrics: Pick<Metrics, 'impressionCounted'>;
    publicHooks: onRequestHookHandler[];
  },
) {
  const { sites, analytics, metrics, publicHooks } = deps;
  const preflight = (url: string, operationId: string) => preflightRoute(app, url, operationId, publicHooks);

  preflight(IMPRESSIONS, 'preflightImpressions');
  acceptTextPlainJson(app, IMPRESSIONS);

  app.post(
    IMPRESSIONS,
    {
      ...PUBLIC_BODY,
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
          ...publicProblems,
          204: Type.Null({ description: 'Counted' }),
          400: Problem,
          403: Problem,
          413: Problem,
          415: Problem,
          422: Problem,
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
        regime: visitorRegime(site.config.regionRules, region.code, site.config.tcf),
        configVersion,
        platform: request.consentApp?.platform ?? 'web',
      });
      metrics.impressionCounted();
      return (reply as FastifyReply).code(204).send();
    },
  );
}
