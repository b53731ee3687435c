import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ipPrefix } from '../../platform/http/ip.ts';
import type { App } from '../../platform/http/types.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import { siteResolver } from './public-site.service.ts';
import { siteAssetsRoutes } from './site-assets.routes.ts';
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
 * The public site endpoints' base: the snippet, config and SDK a customer's pages load
 * (site-assets). Answers the hooks every public site route starts with, which the routes other
 * modules serve under `/v1/public/sites/:siteKey/` take too (the consent module's preferences, the
 * impressions of site-impressions.routes.ts, identity's, tcf's vendor list): no API key, each route
 * is rate limited per site and client address, and resolves its site first (404 for unknown or
 * archived sites, before anything else).
 */
export function sitesRoutes(app: App, deps: { sites: SitesService }): onRequestHookHandler[] {
  const { sites } = deps;
  app.decorateRequest('site', null);
  app.decorateRequest('consentApp', null);
  app.addHook('onClose', () => sites.close());

  const publicHooks: onRequestHookHandler[] = [app.publicRateLimit, siteResolver(sites)];
  siteAssetsRoutes(app, { sites, publicHooks });
  return publicHooks;
}
