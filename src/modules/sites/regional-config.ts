import { createHash } from 'node:crypto';
import { envelope } from '../../platform/http/schemas.ts';
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
 * subdivisions a CDN reports fit, and a flood of distinct declared regions cannot grow it further.
 */
const MAX_REGIONS_PER_SITE = 1_000;

/**
 * The body of `GET …/config` for a visitor of `region` (docs/regions.md): the snapshot of the current
 * version plus `region`, `regime` (the channel's rules resolved for that region) and
 * `consentRequiredSince`. Built and hashed on the first request from each region and kept on the
 * site's cache entry, which lives as long as its configVersion: the hot path serializes nothing.
 */
export function regionalConfig(site: Site, region: ResolvedRegion): RegionalConfig {
  const key = region.code === null ? region.source : `${region.source}:${region.code}`;
  const cached = site.regional.get(key);
  if (cached) return cached;
  const body = {
    ...site.config,
    region: { code: region.code, source: region.source },
    regime: resolveRegime(site.config.regionRules, region.code),
    consentRequiredSince: site.consentRequiredSince,
  };
  const bytes = Buffer.from(JSON.stringify(envelope(body)));
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  const answer = { bytes, etag };
  if (site.regional.size >= MAX_REGIONS_PER_SITE) site.regional.clear();
  site.regional.set(key, answer);
  return answer;
}
