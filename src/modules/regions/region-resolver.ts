import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config.ts';
import type { FieldError } from '../../platform/http/errors.ts';
import { type GeoIpDatabase, type GeoIpOptions, openGeoIpDatabase } from './geoip.ts';
import { isCountry, isVisitorRegion, subdivisionOf } from './region-codes.ts';

export type RegionSource = 'declared' | 'header' | 'geoip' | 'unknown';

/**
 * A visitor's region (docs/regions.md): `{code: "US-CA", source: "header"}`, or
 * `{code: null, source: "unknown"}`.
 */
export interface ResolvedRegion {
  code: string | null;
  source: RegionSource;
}

/** What the resolver reads from a request: plain values, so Fastify's route and the fast path share it. */
export interface RegionRequest {
  environment: 'test' | 'live';
  /** The `region` query parameter, if any (only test channels honour it). */
  declared?: string | undefined;
  /** Node's incoming headers (names lower-case). */
  headers: IncomingHttpHeaders;
  /** The client address as the app trusts it (TRUST_PROXY), for the GeoIP lookup. */
  ip: string | undefined;
}

export interface RegionResolver {
  resolve(request: RegionRequest): ResolvedRegion;
  /** The request headers the answer depends on (for `Vary`); empty when no header setting is set. */
  readonly varyHeaders: readonly string[];
  close(): void;
}

const UNKNOWN: ResolvedRegion = Object.freeze({ code: null, source: 'unknown' });

/**
 * Why a declared `region` query value cannot be used, or null. A declared region is a visitor
 * region (a country or a subdivision), never a group or `*`. Test channels answer 422 with it.
 */
export function declaredRegionError(value: string): FieldError | null {
  return isVisitorRegion(value)
    ? null
    : {
        path: 'query:/region',
        message: 'must be an ISO 3166-1 alpha-2 or ISO 3166-2 code, such as FR or US-CA',
      };
}

/**
 * Builds the resolver from the settings; opens GEOIP_DATABASE now, so a bad file stops the process
 * at start (ConfigError). Synchronous and allocation-light: it runs on every config read.
 */
export function createRegionResolver(
  settings: Pick<Config, 'geoCountryHeader' | 'geoSubdivisionHeader' | 'geoipDatabase'>,
  geoipOptions: GeoIpOptions = {},
): RegionResolver {
  const countryHeader = settings.geoCountryHeader?.toLowerCase() ?? null;
  const subdivisionHeader = settings.geoSubdivisionHeader?.toLowerCase() ?? null;
  const geoip: GeoIpDatabase | null = settings.geoipDatabase
    ? openGeoIpDatabase(settings.geoipDatabase, geoipOptions)
    : null;
  // Memoized per distinct header pair: CDNs send a few hundred values, and the answer is frozen.
  const fromHeaders = new Map<string, ResolvedRegion | null>();

  function headerRegion(headers: IncomingHttpHeaders): ResolvedRegion | null {
    if (countryHeader === null) return null;
    const country = headers[countryHeader];
    // An array (or Node's comma-joined repeats) is not one trusted value: ignored.
    if (typeof country !== 'string') return null;
    const subdivision = subdivisionHeader === null ? undefined : headers[subdivisionHeader];
    const key = typeof subdivision === 'string' ? `${country}\n${subdivision}` : country;
    let region = fromHeaders.get(key);
    if (region === undefined) {
      region = parseHeaderRegion(country, typeof subdivision === 'string' ? subdivision : undefined);
      if (fromHeaders.size >= 10_000) fromHeaders.clear();
      fromHeaders.set(key, region);
    }
    return region;
  }

  return {
    varyHeaders: [settings.geoCountryHeader, settings.geoSubdivisionHeader].filter(
      (name): name is string => !!name,
    ),
    resolve(request) {
      if (request.environment === 'test' && request.declared !== undefined) {
        // Callers reject a bad declared value (declaredRegionError); one that slips through is ignored.
        if (isVisitorRegion(request.declared)) return { code: request.declared, source: 'declared' };
      }
      const fromHeader = headerRegion(request.headers);
      if (fromHeader) return fromHeader;
      if (geoip) {
        const code = geoip.lookup(request.ip);
        if (code !== null) return { code, source: 'geoip' };
      }
      return UNKNOWN;
    },
    close() {
      geoip?.close();
    },
  };
}

/**
 * A region from trusted geo headers, or null when the country is not an assigned code (Cloudflare
 * sends `XX` for unknown and `T1` for Tor). A subdivision that is not one of the country's is
 * dropped: the country alone is still right.
 */
function parseHeaderRegion(rawCountry: string, rawSubdivision: string | undefined): ResolvedRegion | null {
  const country = rawCountry.trim().toUpperCase();
  if (!isCountry(country)) return null;
  const subdivision = rawSubdivision ? subdivisionOf(country, rawSubdivision.trim().toUpperCase()) : null;
  return Object.freeze({ code: subdivision ?? country, source: 'header' as const });
}
