import { createHash } from 'node:crypto';
import { envelope } from '../../platform/http/schemas.ts';
import type { VisitorConfig } from '../channels/channels.service.ts';
import { type ResolvedRegion, resolveRegime } from '../regions/regions.service.ts';
import type { Site } from './site-cache.ts';

/** The config answer of one site for one resolved region: serialized once, with its ETag. */
export interface RegionalConfig {
  bytes: Buffer;
  /** Strong ETag of bytes: it differs per region, as the body does. */
  etag: string;
}

/**
 * At most this many regions' answers per site and configVersion: every country and the
 * subdivisions a CDN reports fit, and a flood of distinct regions cannot grow it further (the oldest
 * answer goes first; rebuilding one costs a serialization and a hash, and its sdk.js bodies are kept
 * by the config's hash, sdk-scripts.ts, so they outlive it).
 */
const MAX_REGIONS_PER_SITE = 1_000;

/** The config's `tcf` (docs/guides/tcf.md): what tcf.js needs, in opt-in regions of a TCF channel. */
export interface SiteTcf {
  cmpId: number;
  cmpVersion: number;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  gdprApplies: true;
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  /** The channel's slice of that vendor list version (immutable per version); the SDK adds `&lang=`. */
  vendorListUrl: string;
}

/** A snapshot's TCF part as visitors get it: the settings, not the vendors' declarations. */
export function publicTcf(config: VisitorConfig, baseUrl: string): SiteTcf | null {
  const { tcf } = config;
  if (!tcf) return null;
  return {
    cmpId: tcf.cmpId,
    cmpVersion: tcf.cmpVersion,
    vendorListVersion: tcf.vendorListVersion,
    tcfPolicyVersion: tcf.tcfPolicyVersion,
    gdprApplies: true,
    publisherCountryCode: tcf.publisherCountryCode,
    purposeOneTreatment: tcf.purposeOneTreatment,
    vendorListUrl: `${baseUrl}/v1/public/sites/${config.siteKey}/tcf/vendor-list.json?version=${tcf.vendorListVersion}&configVersion=${config.configVersion}`,
  };
}

/**
 * The body of `GET …/config` for a visitor of `region` (docs/regions.md): the snapshot of the current
 * version plus `region`, `regime` (the channel's rules resolved for that region) and
 * `consentRequiredSince`; on a TCF channel in an opt-in region, `tcf` (elsewhere the TCF does not
 * apply: no `tcf`, and `__tcfapi` says gdprApplies false). Built and hashed on the first request
 * from each region and kept on the site's cache entry, which lives as long as its configVersion:
 * the hot path serializes nothing.
 */
export function regionalConfig(site: Site, region: ResolvedRegion): RegionalConfig {
  const key = region.code === null ? region.source : `${region.source}:${region.code}`;
  const cached = site.regional.get(key);
  if (cached) return cached;
  // The snapshot's tcf keeps the vendors' declarations (material changes); visitors get site.tcf.
  const { tcf: _declarations, ...shown } = site.config;
  const regime = resolveRegime(site.config.regionRules, region.code);
  const body = {
    ...shown,
    ...(regime === 'opt-in' && site.tcf ? { tcf: site.tcf } : {}),
    region: { code: region.code, source: region.source },
    regime,
    consentRequiredSince: site.consentRequiredSince,
  };
  // Its own memory, not a slice of Buffer's shared 8 KB pool: a kept slice holds its whole slab,
  // so a thousand kept answers of about 1 KB would each hold most of 8 KB.
  const encoded = new TextEncoder().encode(JSON.stringify(envelope(body)));
  const bytes = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  const answer = { bytes, etag };
  if (site.regional.size >= MAX_REGIONS_PER_SITE)
    site.regional.delete(site.regional.keys().next().value as string);
  site.regional.set(key, answer);
  return answer;
}
