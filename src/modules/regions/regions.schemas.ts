import { type Static, Type } from '@sinclair/typebox';
import { RULE_CODE_PATTERN } from './region-codes.ts';

// What other modules use of regions' shapes and constants (docs/regions.md).

/** How a channel treats visitors of a region (docs/regions.md). */
export const REGIMES = ['opt-in', 'opt-out', 'notice-only'] as const;
export type Regime = (typeof REGIMES)[number];

export const Regime = Type.Union(
  REGIMES.map((regime) => Type.Literal(regime)),
  { description: 'opt-in: ask first; opt-out: run until the visitor opts out; notice-only: inform' },
);

/**
 * Bounds: 300 codes per rule lets one rule list every country (249) and more; 50 rules is far more
 * than any law map needs, and keeps the snapshot and each resolution small.
 */
export const MAX_RULES = 50;
export const MAX_CODES_PER_RULE = 300;

export const RegionCode = Type.String({
  pattern: RULE_CODE_PATTERN,
  description: 'ISO 3166-1 alpha-2 (FR), ISO 3166-2 (US-CA), EEA, EU or * (any region, unknown included)',
  examples: ['FR', 'US-CA', 'EEA', '*'],
});

export const RegionRule = Type.Object(
  {
    regions: Type.Array(RegionCode, { minItems: 1, maxItems: MAX_CODES_PER_RULE }),
    regime: Regime,
  },
  { additionalProperties: false },
);
export type RegionRule = Static<typeof RegionRule>;

// No `default` keyword on these schemas: the request validator fills defaults in, and a PATCH that
// leaves a field out must keep its value, not reset it. The service applies the defaults on create.
export const RegionRules = Type.Array(RegionRule, {
  maxItems: MAX_RULES,
  description:
    'Ordered: the first rule naming a code that matches the visitor’s region wins; none: opt-in. Default [{"regions":["*"],"regime":"opt-in"}]',
});

export const DEFAULT_REGION_RULES: readonly RegionRule[] = Object.freeze([
  Object.freeze({ regions: Object.freeze(['*']) as string[], regime: 'opt-in' as const }),
]);

export const ConsentMaxAgeDays = Type.Integer({
  minimum: 30,
  maximum: 395,
  description: 'A stored decision older than this many days is asked again. Default 180',
});
export const DEFAULT_CONSENT_MAX_AGE_DAYS = 180;

/** A visitor's region as the service resolved it: `{"code": "US-CA", "source": "header"}`. */
export const ResolvedRegion = Type.Object(
  {
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'ISO 3166-1 alpha-2 or ISO 3166-2 code; null when unknown',
    }),
    source: RegionSource(),
  },
  { $id: 'ResolvedRegion' },
);

export function RegionSource() {
  return Type.Union(
    ['declared', 'header', 'geoip', 'unknown'].map((source) => Type.Literal(source)),
    {
      description:
        'declared: the region query of a test channel; header: trusted geo headers; geoip: GEOIP_DATABASE',
    },
  );
}
