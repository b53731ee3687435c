import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config.ts';
import { type FieldError, validationFailed } from '../../platform/http/errors.ts';
import { type GeoIpDatabase, type GeoIpOptions, openGeoIpDatabase } from './geoip.ts';
import {
  countryOf,
  GROUPS,
  ISO_COUNTRIES,
  isCountry,
  isGroup,
  isSubdivision,
  ruleCodeProblem,
  subdivisionOf,
} from './region-codes.ts';
import { DEFAULT_REGION_RULES, type Regime, type RegionRule } from './regions.schemas.ts';

/**
 * What other modules use of regions (docs/regions.md): the codes a visitor region may be, the
 * regime rules resolve to, whether a config change asks visitors again, and the visitor's region.
 */

/**
 * One of the 249 codes ISO 3166-1 assigns, without XK: where a standard asks for an ISO 3166-1
 * alpha-2 code (a TC string's publisherCountryCode), a user-assigned code is not one.
 */
export const isAssignedIsoCountry = (code: string): boolean => ISO_COUNTRIES.has(code);

/** A visitor region code: an assigned country or a listed subdivision. */
export const isVisitorRegion = (code: string): boolean => isCountry(code) || isSubdivision(code);

/**
 * The codes of schema-valid rules that name no real region, one error per bad code, at its JSON
 * Pointer under `basePath` (`/regionRules/0/regions/2`). The schema has checked the shape and the
 * format; this checks that each country and subdivision is assigned.
 */
export function regionRulesErrors(rules: readonly RegionRule[], basePath = '/regionRules'): FieldError[] {
  const errors: FieldError[] = [];
  rules.forEach((rule, i) => {
    rule.regions.forEach((code, j) => {
      const problem = ruleCodeProblem(code);
      if (problem) errors.push({ path: `${basePath}/${i}/regions/${j}`, message: problem });
    });
  });
  return errors;
}

/** Throws a 422 `validation_failed` listing every bad code. */
export function assertRegionRules(rules: readonly RegionRule[], basePath = '/regionRules'): void {
  const errors = regionRulesErrors(rules, basePath);
  if (errors.length > 0) throw validationFailed(errors);
}

/** Whether a code named in a rule covers the visitor's region (null: unknown). */
export function codeMatches(code: string, region: string | null): boolean {
  if (code === '*') return true;
  if (region === null) return false;
  if (isGroup(code)) return GROUPS[code].has(countryOf(region));
  // A country covers its subdivisions; a subdivision only itself.
  return code.length === 2 ? countryOf(region) === code : region === code;
}

/** The regime of a visitor's region: the first rule naming a matching code; none matches → opt-in. */
export function resolveRegime(rules: readonly RegionRule[], region: string | null): Regime {
  for (const rule of rules) {
    for (const code of rule.regions) if (codeMatches(code, region)) return rule.regime;
  }
  return 'opt-in';
}

/**
 * What of a config snapshot (channels/visitor-config.ts) decides whether visitors must be asked
 * again. Structural, so the stored VisitorConfig satisfies it as is; `regionRules` is optional
 * because snapshots stored before regions existed lack it (they meant the default rules).
 */
export interface MaterialSnapshot {
  privacyPolicy: { version: string };
  purposes: ReadonlyArray<{
    key: string;
    name: string;
    description: string | null;
    legalBasis: string;
    required: boolean;
  }>;
  regionRules?: readonly RegionRule[];
}

/**
 * Whether a new config version needs every visitor asked again (`reconsent`): a
 * purpose added; a purpose's legal basis, `required` flag, or default-language name or description
 * changed; the policy version changed; or any region's regime changed. Translations, technologies,
 * origins, cosmetics and removed purposes (less is done with the visitor's data, not more) are not
 * material. The first version (`previous` null) is.
 */
export function isReconsent(previous: MaterialSnapshot | null, next: MaterialSnapshot): boolean {
  if (previous === null) return true;
  if (previous.privacyPolicy.version !== next.privacyPolicy.version) return true;
  const before = new Map(previous.purposes.map((purpose) => [purpose.key, purpose]));
  for (const purpose of next.purposes) {
    const old = before.get(purpose.key);
    if (!old) return true;
    if (
      old.legalBasis !== purpose.legalBasis ||
      old.required !== purpose.required ||
      old.name !== purpose.name ||
      old.description !== purpose.description
    ) {
      return true;
    }
  }
  return regimesDiffer(
    previous.regionRules ?? DEFAULT_REGION_RULES,
    next.regionRules ?? DEFAULT_REGION_RULES,
  );
}

/**
 * Whether some visitor region gets a different regime under `a` than under `b`. Compares effect,
 * not text: reordering or regrouping rules that moves no region is not a change.
 *
 * Which regions to try: a region's regime depends only on which of the named codes match it. So one
 * region per distinct set of matching codes is enough: unknown (matches only `*`, like every region
 * no rule names), every named subdivision, and every country named alone or through a group (a
 * subdivision no rule names matches exactly what its country matches).
 */
export function regimesDiffer(a: readonly RegionRule[], b: readonly RegionRule[]): boolean {
  const probes = new Set<string>();
  for (const rule of [...a, ...b]) {
    for (const code of rule.regions) {
      if (isGroup(code)) for (const country of GROUPS[code]) probes.add(country);
      else if (code !== '*') probes.add(code);
    }
  }
  if (resolveRegime(a, null) !== resolveRegime(b, null)) return true;
  for (const region of probes) if (resolveRegime(a, region) !== resolveRegime(b, region)) return true;
  return false;
}

/**
 * The config's `consentRequiredSince`: the newest version with `reconsent: true`. Version 1 is
 * always one; 1 when the list has none (a channel with no recorded flags yet).
 */
export function consentRequiredSince(versions: Iterable<{ version: number; reconsent: boolean }>): number {
  let since = 1;
  for (const { version, reconsent } of versions) if (reconsent && version > since) since = version;
  return since;
}

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
