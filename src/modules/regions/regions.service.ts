// What other modules use of regions (docs/regions.md): rules, regimes, material changes, resolution.
export { consentRequiredSince, isReconsent, type MaterialSnapshot } from './material-changes.ts';
export { isAssignedIsoCountry, isVisitorRegion } from './region-codes.ts';
export {
  createRegionResolver,
  declaredRegionError,
  type RegionRequest,
  type RegionResolver,
  type RegionSource,
  type ResolvedRegion,
} from './region-resolver.ts';
export {
  assertRegionRules,
  DEFAULT_CONSENT_MAX_AGE_DAYS,
  DEFAULT_REGION_RULES,
  REGIMES,
  type Regime,
  type RegionRule,
  resolveRegime,
} from './region-rules.ts';
