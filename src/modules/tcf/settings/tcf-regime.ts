import { type Regime, type RegionRule, resolveRegime } from '../../regions/regions.service.ts';

/** What a channel says of visitors whose region is unknown (channel `tcf.unknownRegion`). */
export type UnknownRegion = 'gdpr' | 'not_applicable';
export const UNKNOWN_REGIONS: readonly UnknownRegion[] = ['gdpr', 'not_applicable'];

/**
 * The regime of a visitor (docs/regions.md), with the TCF's rule for a region the service could not
 * resolve (no GeoIP database, a private address, an address the database does not know): on a TCF
 * channel such a visitor may be in the EEA or the UK, and a CMP that answered `gdprApplies: false`
 * would have vendors process their data without a legal basis, so the visitor is treated as one the
 * GDPR covers (opt-in, the TCF layers, `gdprApplies: true`), unless the channel set
 * `unknownRegion: "not_applicable"` (its audience is known to be elsewhere): then the region rules
 * decide, as on channels without TCF (docs/guides/tcf.md, "Visitors whose region is unknown").
 */
export function visitorRegime(
  rules: readonly RegionRule[],
  regionCode: string | null,
  tcf: { unknownRegion?: UnknownRegion } | null | undefined,
): Regime {
  if (regionCode === null && tcf && (tcf.unknownRegion ?? 'gdpr') === 'gdpr') return 'opt-in';
  return resolveRegime(rules, regionCode);
}
