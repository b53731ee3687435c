import { type Static, Type } from '@sinclair/typebox';
import { type FieldError, validationFailed } from '../../platform/http/errors.ts';
import { countryOf, GROUPS, isGroup, RULE_CODE_PATTERN, ruleCodeProblem } from './region-codes.ts';

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
