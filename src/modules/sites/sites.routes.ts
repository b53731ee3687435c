import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ipPrefix } from '../../platform/http/ip.ts';
import type { App } from '../../platform/http/types.ts';
import type { Metrics } from '../../platform/metrics/metrics.ts';
import type { AnalyticsService } from '../analytics/analytics.service.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import type { IdentityService } from '../identity/identity.service.ts';
import { siteAssetsRoutes } from './site-assets.routes.ts';
import { siteIdentityRoutes } from './site-identity.routes.ts';
import { siteResolver } from './site-requests.ts';
import { siteWritesRoutes } from './site-writes.routes.ts';
import type { SitesService } from './sites.service.ts';

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

/**
 * The public site endpoints: the snippet, config and SDK a customer's pages load (site-assets),
 * the endpoints their visitors' decisions and impressions are posted to (site-writes), and the one
 * a signed-in visitor's page identifies the account at (site-identity). No API
 * key: each route is rate limited per site and client address, and resolves its site first (404
 * for unknown or archived sites, before anything else).
 */
export function sitesRoutes(
  app: App,
  deps: {
    sites: SitesService;
    analytics: AnalyticsService;
    identity: IdentityService;
    metrics: Pick<Metrics, 'decisionRecorded' | 'impressionCounted'>;
  },
) {
  const { sites, analytics, metrics } = deps;
  app.decorateRequest('site', null);
  app.addHook('onClose', () => sites.close());

  const publicHooks: onRequestHookHandler[] = [app.publicRateLimit, siteResolver(sites)];
  siteAssetsRoutes(app, { sites, publicHooks });
  siteWritesRoutes(app, { sites, analytics, metrics, publicHooks });
  // Signed-in visitors: an identity token in, the account's current choice out.
  siteIdentityRoutes(app, { identity: deps.identity, publicHooks });
}
