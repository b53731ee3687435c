import type { onRequestHookHandler } from 'fastify';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { VendorListSite } from '../tcf/tcf.schemas.ts';
import { allowedOrigin, corsHeaders } from './cors.ts';
import { publicProblems, siteOf, tags } from './public-site.service.ts';
import { SiteParams } from './sites.schemas.ts';

/**
 * The public site endpoints as the tcf module's vendor-list route sees them (VendorListSite): the
 * site the hooks resolved, its channel's config versions, the CORS headers of its origins.
 */
export function vendorListSite(deps: {
  publicHooks: onRequestHookHandler[];
  channels: Pick<ChannelsService, 'findConfigVersion' | 'usedVendorListVersion'>;
}): VendorListSite {
  const { channels } = deps;
  return {
    onRequest: deps.publicHooks,
    schema: { params: SiteParams, tags, problems: publicProblems },
    corsHeaders: (request) => corsHeaders(allowedOrigin(siteOf(request), request.headers.origin)),
    async config(request, configVersion) {
      const site = siteOf(request);
      return configVersion === undefined
        ? site.config
        : channels.findConfigVersion(site.channel, configVersion);
    },
    usesVendorList: (request, version) => channels.usedVendorListVersion(siteOf(request).channel, version),
  };
}
