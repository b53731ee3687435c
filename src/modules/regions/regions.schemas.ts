import { Type } from '@sinclair/typebox';

// What other modules' schemas use of regions (docs/regions.md).
export { ConsentMaxAgeDays, Regime, RegionRule, RegionRules } from './region-rules.ts';

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
