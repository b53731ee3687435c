import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import { readDecisionCookie, type StoredDecision } from '../../shared/decision-cookie.ts';
import type { ChannelRow, ChannelsService, VisitorConfig } from '../channels/channels.service.ts';
import {
  createRegionResolver,
  declaredRegionError,
  type RegionResolver,
  type ResolvedRegion,
} from '../regions/regions.service.ts';
import { type ConfigCaching, configCaching } from './config-response.ts';
import {
  COOKIE_CACHE_CONTROL,
  cookieTarget,
  decisionSetCookie,
  type RequestPlace,
  validStoredDecision,
} from './decision-cookie.ts';
import {
  createRegionalAnswerCache,
  type RegionalAnswers,
  type RegionalAnswersObserver,
} from './regional-answers.ts';
import { regionalConfig, type SiteTcf } from './regional-config.ts';
import { sdkBundle } from './sdk-bundle.ts';
import {
  createSdkScripts,
  type Representation,
  type SdkScript,
  type SdkScriptsObserver,
} from './sdk-scripts.ts';
import { STATEMENT_END, STATEMENT_START } from './sdk-with-config.ts';
import { domainOfOrigin } from './sibling-domains.ts';
import { createSiteCache, type SiteCacheDeps } from './site-cache.ts';

/** What the public endpoints know of one site: enough to answer config reads without a query. */
export interface Site {
  channel: ChannelRow;
  /** Active origins, normalized. */
  origins: string[];
  /** An app channel's active app ids (docs/guides/apps.md); [] for a web channel. */
  apps: string[];
  /** The visitor config of channel.configVersion. */
  config: VisitorConfig;
  /** The newest version that asked visitors again (the config's `consentRequiredSince`). */
  consentRequiredSince: number;
  /** What the config tells visitors in opt-in regions of a TCF channel; null: not one. */
  tcf: SiteTcf | null;
  /**
   * `GET …/config`'s answers by region, serialized once per configVersion and set of origins
   * (regional-config.ts), within the cache all sites share (regional-answers.ts).
   */
  regional: RegionalAnswers;
  checkedAtMs: number;
}

/**
 * The config answer (`{"data": …}`, as `GET …/config` sends it) that an sdk.js body carries, or
 * null when it carries none: for readers of the script other than the SDK (the tracker scanner).
 */
export function carriedConfig(script: string): string | null {
  if (!script.startsWith(STATEMENT_START)) return null;
  const start = script.indexOf(']=');
  const end = script.indexOf(STATEMENT_END);
  return start > 0 && end > start ? script.slice(start + 2, end) : null;
}

/** What of a public request locates the visitor (docs/regions.md). */
export interface VisitorLocation {
  /** The `region` query parameter, honoured on test channels only. */
  declared: string | undefined;
  headers: IncomingHttpHeaders;
  /** The client address as TRUST_PROXY makes it. */
  ip: string | undefined;
}

/** Where a Fastify request came from, as the decision cookie's rules read it (decision-cookie.ts). */
export function requestPlace(request: FastifyRequest): RequestPlace {
  const { origin } = request.headers;
  const fetchSite = request.headers['sec-fetch-site'];
  return {
    origin: typeof origin === 'string' && origin !== '' ? origin : undefined,
    host: request.host,
    protocol: request.protocol,
    secFetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
  };
}

/** The settings the visitor's region is resolved from (config.ts). */
export type RegionSettings = Parameters<typeof createRegionResolver>[0];

/** The public site endpoints' rules: site lookup, the snippet, recording a decision. */
export function createSitesService(deps: {
  store: Pick<Store, 'listen'>;
  channels: Pick<ChannelsService, 'findConfigVersion'> & SiteCacheDeps['channels'];
  /**
   * The inline stubs a channel's snippet carries before the SDK's tag (the GPP and TCF modules',
   * wired in services.ts), so `__gpp` and `__tcfapi` exist before any vendor's tag runs.
   */
  snippetStubs: (channel: Site['channel']) => string[];
  clock: Clock;
  baseUrl: string;
  regionSettings: RegionSettings;
  /** A GEOIP_DATABASE replacement that could not be read (the previous data stays in use). */
  onGeoIpReloadError?: (error: Error) => void;
  /** SDK_CACHE_MB in bytes: compressed sdk.js bodies of all sites together. */
  sdkCacheBytes: number;
  /** The metrics of the sdk.js cache (compressions, its size, evictions). */
  sdkScriptsObserver?: SdkScriptsObserver;
  /** CONFIG_CACHE_MB in bytes, and CONFIG_CACHE_MAX_IDLE_SECONDS: config answers of all sites together. */
  configCache: { maxBytes: number; maxIdleMs: number };
  /** The metrics of the config answers' cache (its size, evictions). */
  configCacheObserver?: RegionalAnswersObserver;
}) {
  const { store, channels, clock, baseUrl } = deps;
  const answers = createRegionalAnswerCache({
    ...deps.configCache,
    clock,
    observer: deps.configCacheObserver,
  });
  const cache = createSiteCache({ channels, clock, listen: store.listen, baseUrl, answers });
  // Opens GEOIP_DATABASE now: a file that does not parse stops the process at start (ConfigError).
  const regions: RegionResolver = createRegionResolver(deps.regionSettings, {
    onReloadError: deps.onGeoIpReloadError,
  });
  const caching = configCaching(regions.varyHeaders, deps.regionSettings.geoipDatabase !== null);
  const sdkScripts = createSdkScripts({
    maxBytes: deps.sdkCacheBytes,
    clock,
    observer: deps.sdkScriptsObserver,
  });

  /** The notice the visitor answered, or a 422 if the channel never had that configVersion. */
  async function noticeAnswered(site: Site, version: number): Promise<VisitorConfig> {
    if (version === site.config.configVersion) return site.config;
    // Newer than this replica's cache: the channel may have just published it.
    const current = version > site.channel.configVersion ? await cache.refresh(site.channel.siteKey) : site;
    const config = current ? await channels.findConfigVersion(current.channel, version) : null;
    if (!config) {
      throw validationFailed([
        {
          path: '/configVersion',
          message: `is not a config version of this channel (its current one is ${(current ?? site).channel.configVersion})`,
        },
      ]);
    }
    return config;
  }

  return {
    /** Stops the site cache's change listener and the GeoIP reloads (the app is closing). */
    close: () => {
      cache.close();
      regions.close();
    },

    /** How shared caches may keep config answers (Vary, Cache-Control). */
    caching: caching as ConfigCaching,

    /**
     * sdk.js for a visitor of `region`: the site's config for that region in front of the SDK, as
     * `representation`; body null when `ifNoneMatch` already holds it (sdk-scripts.ts).
     */
    sdkScript(
      site: Site,
      region: ResolvedRegion,
      representation: Representation,
      ifNoneMatch: string | string[] | undefined,
    ): Promise<SdkScript> {
      const config = regionalConfig(site, region);
      return sdkScripts.answer(site.channel.siteKey, config, sdkBundle(), representation, ifNoneMatch);
    },

    /**
     * The visitor's region, in order: a declared `region` on a test channel, trusted
     * geo headers, GEOIP_DATABASE, unknown. A malformed declared region on a test channel is a 422;
     * on a live channel the parameter is ignored, not refused.
     */
    regionOf(site: Site, location: VisitorLocation): ResolvedRegion {
      const { environment } = site.channel;
      if (environment === 'test' && location.declared !== undefined) {
        const error = declaredRegionError(location.declared);
        if (error) throw validationFailed([error]);
      }
      return regions.resolve({ environment, ...location });
    },

    /** The notice (config version) a decision answered; a version the channel never had is a 422. */
    noticeAnswered,

    /**
     * Sets the decision cookie to `value` on the answer to `request` when it came through the
     * channel's first-party path (docs/guides/keep-the-choice.md); otherwise sets nothing. Returns
     * whether it was set. The answer is then kept by no cache (COOKIE_CACHE_CONTROL).
     */
    setDecisionCookie(request: FastifyRequest, reply: FastifyReply, value: StoredDecision): boolean {
      const site = request.site as Site;
      const target = cookieTarget(site, requestPlace(request));
      if (!target) return false;
      reply.header('Set-Cookie', decisionSetCookie(site, target, value));
      reply.header('Cache-Control', COOKIE_CACHE_CONTROL);
      return true;
    },

    /** The decision cookie a request carries, when it is a valid decision of the site now; else null. */
    sentDecision(site: Site, cookieHeader: string | undefined): StoredDecision | null {
      if (!cookieHeader) return null;
      return validStoredDecision(site, readDecisionCookie(cookieHeader, site.channel.siteKey), clock.now());
    },

    /**
     * The visitor id of the decision cookie a request carries, even when its decision no longer
     * holds (a visitor keeps their id across decisions); null without a readable one.
     */
    sentVisitorId(site: Site, cookieHeader: string | undefined): string | null {
      const stored = cookieHeader ? readDecisionCookie(cookieHeader, site.channel.siteKey) : null;
      return stored && stored.s.length <= 128 ? stored.s : null;
    },

    /**
     * The Set-Cookie that refreshes the decision cookie a config or sdk.js request carries through
     * the first-party path, when it is a valid decision of the site (its lifetime starts again, at
     * consentMaxAgeDays); null otherwise: a refresh never creates a cookie. Channels without a
     * firstPartyPath, and requests without a cookie, pay one comparison.
     */
    decisionCookieRefresh(site: Site, place: RequestPlace, cookieHeader: string | undefined): string | null {
      if (site.channel.firstPartyPath === null || !cookieHeader) return null;
      const target = cookieTarget(site, place);
      if (!target) return null;
      const stored = validStoredDecision(
        site,
        readDecisionCookie(cookieHeader, site.channel.siteKey),
        clock.now(),
      );
      return stored ? decisionSetCookie(site, target, stored) : null;
    },

    /** The registrable domain of an origin: two origins on one share the choice without a handoff. */
    domainOfOrigin,

    /** The active site of a key from the cache alone, or undefined when it must be (re)read. */
    cachedSite: (siteKey: string): Site | undefined => cache.fresh(siteKey),

    /** The active site of a key; unknown and archived sites are a 404. */
    async resolve(siteKey: string): Promise<Site> {
      const site = await cache.get(siteKey);
      if (!site) throw notFound('site');
      return site;
    },

    /**
     * The tags that load the SDK for this site, after the stubs its channel needs (with a gppCmpId,
     * the IAB GPP stub; on a TCF channel the IAB TCF stub), inline, in both forms
     * (docs/guides/keep-the-choice.md): `directHtml` loads sdk.js from the service's BASE_URL;
     * `firstPartyHtml` from the channel's firstPartyPath on the page's own origin (a root-relative
     * URL, so one snippet serves every origin of the channel), null without a path. `html` is the
     * one to paste: the first-party form when the channel has a path.
     */
    snippet(site: Site): { html: string; firstPartyHtml: string | null; directHtml: string } {
      const { siteKey: key, firstPartyPath } = site.channel;
      const stubs = deps.snippetStubs(site.channel).map((stub) => `<script>${stub}</script>`);
      const tag = (base: string) =>
        [
          ...stubs,
          `<script src="${base}/v1/public/sites/${key}/sdk.js" data-site-key="${key}" async></script>`,
        ].join('\n');
      const directHtml = tag(baseUrl);
      const firstPartyHtml = firstPartyPath === null ? null : tag(firstPartyPath);
      return { html: firstPartyHtml ?? directHtml, firstPartyHtml, directHtml };
    },
  };
}

export type SitesService = ReturnType<typeof createSitesService>;
