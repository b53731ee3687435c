import type { IncomingHttpHeaders } from 'node:http';
import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import type { UnitOfWork } from '../../platform/db/unit-of-work.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import { decisionOutcome } from '../analytics/analytics.service.ts';
import type { ChannelsService, VisitorConfig } from '../channels/channels.service.ts';
import type { EvidenceService, RecordedEvent, RecordInput } from '../evidence/evidence.service.ts';
import type { Decision, EvidenceTcf } from '../evidence/evidence.tables.ts';
import type { IdentityService } from '../identity/identity.service.ts';
import {
  createRegionResolver,
  declaredRegionError,
  type RegionResolver,
  type ResolvedRegion,
  resolveRegime,
} from '../regions/regions.service.ts';
import { acStringProblems } from '../tcf/additional-consent.service.ts';
import type { TcStringContext, TcStringProblem } from '../tcf/tcf.service.ts';
import { type ConfigCaching, configCaching } from './config-response.ts';
import { resolveDecisions } from './decisions.ts';
import { gppDecodeError } from './gpp.ts';
import { createGppDecoder, type GppDecoder } from './gpp-decoder.ts';
import { gppStub } from './gpp-stub.ts';
import { regionalConfig } from './regional-config.ts';
import { sdkBundle } from './sdk-bundle.ts';
import {
  createSdkScripts,
  type Representation,
  type SdkScript,
  type SdkScriptsObserver,
} from './sdk-scripts.ts';
import { createSiteCache, type Site, type SiteCacheDeps } from './site-cache.ts';
import type { PreferencesBody } from './sites.schemas.ts';
import { tcfStub } from './tcf-stub.ts';

export type PreferencesInput = Static<typeof PreferencesBody>;
/** The config an sdk.js body carries, for modules that read the script (the tracker scanner). */
export { carriedConfig } from './sdk-with-config.ts';

/** What the request itself tells about a decision (never from the body). */
export interface RequestFacts {
  origin: string;
  userAgent: string | null;
  ipPrefix: string | null;
  region: ResolvedRegion;
  /** The request carried `Sec-GPC: 1`: the browser's Global Privacy Control signal. */
  secGpc: boolean;
}

/** What of a public request locates the visitor (docs/regions.md). */
export interface VisitorLocation {
  /** The `region` query parameter, honoured on test channels only. */
  declared: string | undefined;
  headers: IncomingHttpHeaders;
  /** The client address as TRUST_PROXY makes it. */
  ip: string | undefined;
}

/**
 * Checks a decision's TC string: the tcf module's (tc-string.ts, wired in services.ts). The summary
 * the evidence keeps, or why the string is refused.
 */
export interface TcStringChecker {
  check(
    value: string,
    context: TcStringContext,
  ): Promise<{ tcf: EvidenceTcf; problems?: never } | { problems: TcStringProblem[] }>;
}

/** The settings the visitor's region is resolved from (config.ts). */
export type RegionSettings = Parameters<typeof createRegionResolver>[0];

/** The public site endpoints' rules: site lookup, the snippet, recording a decision. */
export function createSitesService(deps: {
  store: Pick<Store, 'listen'>;
  channels: Pick<ChannelsService, 'findConfigVersion'> & SiteCacheDeps['channels'];
  evidence: Pick<EvidenceService, 'write' | 'stage' | 'commitStaged'>;
  tcStrings: TcStringChecker;
  /** Signed-in visitors: whose account an identity token names. */
  identity: Pick<IdentityService, 'accountOf'>;
  clock: Clock;
  baseUrl: string;
  regionSettings: RegionSettings;
  /** A GEOIP_DATABASE replacement that could not be read (the previous data stays in use). */
  onGeoIpReloadError?: (error: Error) => void;
  /** The GPP decoders (gpp-decoder.ts); by default its own, started on the first GPP string. */
  gppDecoder?: GppDecoder;
  /** SDK_CACHE_MB in bytes: compressed sdk.js bodies of all sites together. */
  sdkCacheBytes: number;
  /** The metrics of the sdk.js cache (compressions, its size, evictions). */
  sdkScriptsObserver?: SdkScriptsObserver;
}) {
  const { store, channels, evidence, clock, baseUrl } = deps;
  const cache = createSiteCache({ channels, clock, listen: store.listen, baseUrl });
  // Opens GEOIP_DATABASE now: a file that does not parse stops the process at start (ConfigError).
  const regions: RegionResolver = createRegionResolver(deps.regionSettings, {
    onReloadError: deps.onGeoIpReloadError,
  });
  const caching = configCaching(regions.varyHeaders, deps.regionSettings.geoipDatabase !== null);
  const gppDecoder = deps.gppDecoder ?? createGppDecoder();
  const sdkScripts = createSdkScripts({
    maxBytes: deps.sdkCacheBytes,
    clock,
    observer: deps.sdkScriptsObserver,
  });

  /**
   * A decision's GPP string against the notice it answered: only a channel with a gppCmpId uses GPP
   * (its SDK provides the GPP API); elsewhere a string is a 422 and is never decoded. Decisions
   * without one pay nothing.
   */
  async function checkGppString(site: Site, notice: VisitorConfig, value: string): Promise<void> {
    if (notice.gppCmpId === null) {
      throw validationFailed([
        {
          path: '/gppString',
          message: `was sent, but configVersion ${notice.configVersion} of this channel has no gppCmpId: it does not use GPP`,
        },
      ]);
    }
    const { organizationId, siteKey } = site.channel;
    const problem = await gppDecodeError(gppDecoder, value, { organizationId, siteKey });
    if (problem) throw validationFailed([{ path: '/gppString', message: problem }]);
  }

  /**
   * A decision's TC string against the notice it answered (that version's TCF settings, none: 422)
   * and the decisions recorded for it: the tcf module's rules, each refusal naming its rule. Only
   * called when a string was sent; decisions without one pay nothing. Reads only what is in memory
   * (the notice, the clock; the vendor list's policy version once per version and process).
   */
  async function checkedTcString(
    notice: VisitorConfig,
    value: string,
    decisions: Record<string, Decision>,
  ): Promise<EvidenceTcf> {
    if (!notice.tcf) {
      throw validationFailed([
        {
          path: '/tcString',
          message: `was sent, but configVersion ${notice.configVersion} of this channel has no TCF settings`,
        },
      ]);
    }
    const checked = await deps.tcStrings.check(value, {
      cmpId: notice.tcf.cmpId,
      vendorIds: notice.tcf.vendorIds,
      consentMaxAgeDays: notice.consentMaxAgeDays,
      purposes: notice.purposes,
      decisions,
      publisherRestrictions: notice.tcf.publisherRestrictions ?? [],
      now: clock.now(),
    });
    if (checked.problems !== undefined) {
      throw validationFailed(
        checked.problems.map(({ message, rule }) =>
          rule ? { path: '/tcString', code: rule, message } : { path: '/tcString', message },
        ),
      );
    }
    return checked.tcf;
  }

  /**
   * A decision's Google Additional Consent string, kept in the evidence beside the TC string it came
   * with: refused (422) without one, on a notice without googleAdditionalConsent, in another format
   * than version 2, or naming a provider the notice does not list.
   */
  function withAddtlConsent(notice: VisitorConfig, tcf: EvidenceTcf | null, value: string): EvidenceTcf {
    const providerIds = notice.tcf?.googleAdditionalConsent?.providerIds ?? null;
    const problems =
      tcf === null
        ? [{ rule: 'ac_not_expected' as const, message: 'was sent without a tcString' }]
        : acStringProblems(value, providerIds);
    if (problems.length > 0 || tcf === null) {
      throw validationFailed(
        problems.map(({ rule, message }) => ({ path: '/addtlConsent', code: rule, message })),
      );
    }
    return { ...tcf, addtlConsent: value };
  }

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
    /** Stops the site cache's change listener, the GeoIP reloads and the GPP decoders (the app is closing). */
    close: () => {
      cache.close();
      regions.close();
      gppDecoder.close();
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

    /**
     * How the analytics count a recorded decision (accept all, reject all or custom), from the version it
     * answered.
     */
    async outcomeOf(
      site: Site,
      event: { configVersion: number | null; decisions: Record<string, string> | null },
    ) {
      const notice = await noticeAnswered(site, event.configVersion as number);
      return decisionOutcome(notice.purposes, event.decisions ?? {});
    },

    /** The receipt address (docs/receipts.md) only the visitor receives (its token is a capability). */
    receiptUrl: (event: RecordedEvent): string =>
      `${baseUrl}/v1/public/receipts/${event.row.id}?token=${encodeURIComponent(event.receiptToken)}`,

    /** The preferences route's idempotent commit: staged consent events with the key's record. */
    commitStaged: evidence.commitStaged,

    /** The active site of a key from the cache alone, or undefined when it must be (re)read. */
    cachedSite: (siteKey: string): Site | undefined => cache.fresh(siteKey),

    /** The active site of a key; unknown and archived sites are a 404. */
    async resolve(siteKey: string): Promise<Site> {
      const site = await cache.get(siteKey);
      if (!site) throw notFound('site');
      return site;
    },

    /**
     * The tag that loads the SDK for this site; with a gppCmpId, the IAB GPP stub first, and on a
     * TCF channel the IAB TCF stub, inline, so `__gpp` and `__tcfapi` exist before any vendor's tag
     * runs.
     */
    snippetHtml(site: Site): string {
      const { siteKey: key, gppCmpId, tcf, gppSections } = site.channel;
      const tags: string[] = [];
      if (gppCmpId) tags.push(`<script>${gppStub(gppCmpId, { tcf: !!tcf, sections: gppSections })}</script>`);
      if (tcf) tags.push(`<script>${tcfStub()}</script>`);
      tags.push(
        `<script src="${baseUrl}/v1/public/sites/${key}/sdk.js" data-site-key="${key}" async></script>`,
      );
      return tags.join('\n');
    },

    /**
     * Records a visitor's decision: staged in `unit` when the caller commits it (a write with an
     * Idempotency-Key, see RouteIdempotency.commitStaged), else written before this resolves.
     */
    async recordPreferences(
      site: Site,
      input: PreferencesInput,
      facts: RequestFacts,
      unit: UnitOfWork | null,
    ): Promise<RecordedEvent> {
      // Only a decision sent with a token pays for its check (the keys are cached per channel).
      const accountId =
        input.identityToken === undefined
          ? null
          : await deps.identity.accountOf(site.channel, input.identityToken);
      const notice = await noticeAnswered(site, input.configVersion);
      if (input.gppString !== undefined) await checkGppString(site, notice, input.gppString);
      // The regime of the notice the visitor answered, where the visitor was.
      const regime = resolveRegime(notice.regionRules, facts.region.code);
      const gpc = (input.gpc ?? false) || facts.secGpc;
      const source = input.source ?? 'banner';
      const decisions = resolveDecisions(notice, {
        decisions: input.decisions,
        gpc,
        // Where the visitor may opt back in (opt-out regions), an explicit choice wins over the
        // signal; the SDK's own record of the signal (source gpc), and opt-in regions, deny.
        explicitChoiceWins: regime === 'opt-out' && source !== 'gpc',
      });
      // Checked against the decisions as recorded: a string must not grant what they deny.
      const checkedTcf =
        input.tcString === undefined ? null : await checkedTcString(notice, input.tcString, decisions);
      const tcf =
        input.addtlConsent === undefined
          ? checkedTcf
          : withAddtlConsent(notice, checkedTcf, input.addtlConsent);
      const decision: RecordInput = {
        channel: site.channel,
        // A signed-in visitor's decision is the account's: its id, never stored, is pseudonymized.
        subjectKind: accountId === null ? 'device' : 'account',
        subjectId: accountId ?? input.subjectId,
        decisions,
        configVersion: notice.configVersion,
        policyVersion: notice.privacyPolicy.version,
        source,
        language: input.language ?? null,
        gpc,
        origin: facts.origin,
        userAgent: facts.userAgent,
        ipPrefix: facts.ipPrefix,
        region: facts.region,
        regime,
        gppString: input.gppString ?? null,
        tcString: input.tcString ?? null,
        tcf,
        // Only a GPC decision can have honoured the signal.
        gpcHonoredShown: gpc && input.gpcHonoredShown === true,
      };
      return unit ? evidence.stage(unit, decision) : evidence.write(decision);
    },
  };
}

export type SitesService = ReturnType<typeof createSitesService>;
