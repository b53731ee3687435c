import { createHash } from 'node:crypto';
import { envelope } from '../../platform/http/schemas.ts';
import { bannerWordsFor } from '../../shared/banner-words.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import type { ResolvedRegion } from '../regions/regions.service.ts';
import type { PublisherRestriction } from '../tcf/settings/tcf-settings.service.ts';
import { type SnapshotTcf, TCF_RELEASE, visitorRegime } from '../tcf/settings/tcf-settings.service.ts';
import { pageOrigins } from './page-origins.ts';
import { siblingDomains } from './sibling-domains.ts';
import type { Site } from './sites.service.ts';

/** The config answer of one site for one resolved region: serialized once, with its ETag. */
export interface RegionalConfig {
  bytes: Buffer;
  /** Strong ETag of bytes: it differs per region, as the body does. */
  etag: string;
}

/** The config's `tcf` (docs/guides/tcf.md): what tcf.js needs, in opt-in regions of a TCF channel. */
export interface SiteTcf {
  cmpId: number;
  cmpVersion: number;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  gdprApplies: true;
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  /** After a decision, the control that reopens the preferences (tcf.js), or "none". */
  reopenControl: 'floating' | 'none';
  /** Encoded by tcf.js in every string it makes (tc_publisher_restrictions). */
  publisherRestrictions: PublisherRestriction[];
  /** Google Additional Consent's providers (tcf.js makes the AC string); null: none. */
  googleAdditionalConsent: NonNullable<SnapshotTcf['googleAdditionalConsent']> | null;
  /** The channel's slice of that vendor list version (immutable per version); the SDK adds `&lang=`. */
  vendorListUrl: string;
}

/**
 * The config's `tcfCmp`, in every region of a TCF channel: the CMP that `__tcfapi` names, and
 * whether GDPR applies to the visitor. Outside opt-in regions the SDK answers the CMP API with it
 * alone (GDPR does not apply, and the answers then name only the CMP); in them it is what the SDK
 * says when tcf.js cannot be had (the CMP in error).
 */
export interface SiteTcfCmp {
  cmpId: number;
  cmpVersion: number;
  tcfPolicyVersion: number;
  gdprApplies: boolean;
}

/**
 * A snapshot's TCF part as visitors get it: the settings, not the vendors' declarations. A
 * cmpVersion the channel did not pin is the service's TCF release, read here rather than stored,
 * so a new release needs no new config version.
 */
export function publicTcf(config: VisitorConfig, baseUrl: string): SiteTcf | null {
  const { tcf } = config;
  if (!tcf) return null;
  return {
    cmpId: tcf.cmpId,
    cmpVersion: tcf.cmpVersion ?? TCF_RELEASE,
    vendorListVersion: tcf.vendorListVersion,
    tcfPolicyVersion: tcf.tcfPolicyVersion,
    gdprApplies: true,
    publisherCountryCode: tcf.publisherCountryCode,
    purposeOneTreatment: tcf.purposeOneTreatment,
    reopenControl: tcf.reopenControl ?? 'floating',
    publisherRestrictions: tcf.publisherRestrictions ?? [],
    googleAdditionalConsent: tcf.googleAdditionalConsent ?? null,
    vendorListUrl: `${baseUrl}/v1/public/sites/${config.siteKey}/tcf/vendor-list.json?version=${tcf.vendorListVersion}&configVersion=${config.configVersion}`,
  };
}

const tcfCmpOf = ({ cmpId, cmpVersion, tcfPolicyVersion }: SiteTcf, gdprApplies: boolean): SiteTcfCmp => ({
  cmpId,
  cmpVersion,
  tcfPolicyVersion,
  gdprApplies,
});

/**
 * The body of `GET …/config` for a visitor of `region` (docs/regions.md): the snapshot of the current
 * version plus `region`, `regime` (the channel's rules resolved for that region),
 * `consentRequiredSince`, `origins` (where its pages may run: page-origins.ts), `siblingDomains`
 * (sibling-domains.ts) and `bannerWords` (the banner's words in the channel's languages); on a TCF channel,
 * `tcfCmp`, and in an opt-in region `tcf` too (elsewhere the TCF does not apply: `__tcfapi` answers
 * gdprApplies false, without tcf.js). Built and hashed on the first request from each region and kept
 * with the site's cache entry, which lives as long as its configVersion and origins, within the byte
 * bound all sites share (regional-answers.ts): the hot path serializes nothing.
 */
export function regionalConfig(site: Site, region: ResolvedRegion): RegionalConfig {
  const key = region.code === null ? region.source : `${region.source}:${region.code}`;
  const cached = site.regional.get(key);
  if (cached) return cached;
  // The snapshot's tcf keeps the vendors' declarations (material changes); visitors get site.tcf.
  const { tcf: _declarations, ...shown } = site.config;
  // On a TCF channel an unknown region is one the GDPR may cover (tcf.unknownRegion).
  const regime = visitorRegime(site.config.regionRules, region.code, site.config.tcf);
  const body = {
    ...shown,
    ...(regime === 'opt-in' && site.tcf ? { tcf: site.tcf } : {}),
    ...(site.tcf ? { tcfCmp: tcfCmpOf(site.tcf, regime === 'opt-in') } : {}),
    region: { code: region.code, source: region.source },
    regime,
    consentRequiredSince: site.consentRequiredSince,
    origins: pageOrigins(site),
    siblingDomains: siblingDomains(site),
    bannerWords: bannerWordsFor(site.config.languages),
  };
  // Its own memory, not a slice of Buffer's shared 8 KB pool: a kept slice holds its whole slab,
  // so a thousand kept answers of about 1 KB would each hold most of 8 KB.
  const encoded = new TextEncoder().encode(JSON.stringify(envelope(body)));
  const bytes = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  const answer = { bytes, etag };
  site.regional.set(key, answer);
  return answer;
}
