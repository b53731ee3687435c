import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { GROUPS, ruleCodeProblem } from '../../../../src/modules/regions/region-codes.ts';
import {
  ConsentMaxAgeDays,
  DEFAULT_CONSENT_MAX_AGE_DAYS,
  DEFAULT_REGION_RULES,
  type Regime,
  type RegionRule,
  RegionRules,
} from '../../../../src/modules/regions/regions.schemas.ts';
import {
  assertRegionRules,
  regionRulesErrors,
  resolveRegime,
} from '../../../../src/modules/regions/regions.service.ts';
import { AppError } from '../../../../src/platform/http/errors.ts';

const rule = (regime: Regime, ...regions: string[]): RegionRule => ({ regions, regime });

/** A law map as a privacy team would write it: GDPR, then US states, then a notice elsewhere. */
const LAW_MAP = [
  rule('opt-in', 'EEA', 'GB', 'CH'),
  rule('notice-only', 'US-TX'),
  rule('opt-out', 'US'),
  rule('opt-in', 'CA-QC'),
  rule('notice-only', '*'),
];

describe('rule matching and regime resolution', () => {
  it.each<[string, readonly RegionRule[], string | null, Regime]>([
    // Groups: EEA is the EU plus IS, LI, NO; EU is not.
    ['EEA covers an EU member', [rule('opt-out', 'EEA')], 'FR', 'opt-out'],
    ['EEA covers Norway', [rule('opt-out', 'EEA')], 'NO', 'opt-out'],
    ['EEA covers Iceland and Liechtenstein', [rule('opt-out', 'EEA')], 'LI', 'opt-out'],
    ['EU does not cover Norway', [rule('opt-out', 'EU')], 'NO', 'opt-in'],
    ['EU covers a member state', [rule('opt-out', 'EU')], 'DE', 'opt-out'],
    ['EU covers a member’s subdivision', [rule('notice-only', 'EU')], 'ES-CN', 'notice-only'],
    ['EU covers an outermost region with its own code', [rule('notice-only', 'EU')], 'RE', 'notice-only'],
    ['EU does not cover the UK', [rule('notice-only', 'EU')], 'GB', 'opt-in'],
    ['EEA does not cover Switzerland', [rule('notice-only', 'EEA')], 'CH', 'opt-in'],
    ['EU does not cover Greenland (an OCT)', [rule('notice-only', 'EU')], 'GL', 'opt-in'],
    // Country versus subdivision.
    ['a country covers its subdivisions', [rule('opt-out', 'US')], 'US-CA', 'opt-out'],
    ['a country covers itself', [rule('opt-out', 'US')], 'US', 'opt-out'],
    ['a country does not cover another', [rule('opt-out', 'US')], 'CA', 'opt-in'],
    ['a country does not cover a same-letters subdivision', [rule('opt-out', 'CA')], 'US-CA', 'opt-in'],
    ['a subdivision covers itself', [rule('opt-out', 'US-CA')], 'US-CA', 'opt-out'],
    ['a subdivision does not cover its country', [rule('opt-out', 'US-CA')], 'US', 'opt-in'],
    ['a subdivision does not cover a sibling', [rule('opt-out', 'US-CA')], 'US-NY', 'opt-in'],
    // Order: the first rule naming a matching code wins.
    ['an earlier subdivision rule wins', LAW_MAP, 'US-TX', 'notice-only'],
    ['a later country rule applies to the rest', LAW_MAP, 'US-CA', 'opt-out'],
    [
      'an earlier country rule shadows a later subdivision',
      [rule('opt-out', 'CA'), rule('opt-in', 'CA-QC')],
      'CA-QC',
      'opt-out',
    ],
    [
      'an earlier * shadows everything',
      [rule('notice-only', '*'), rule('opt-out', 'US')],
      'US',
      'notice-only',
    ],
    ['order inside a rule does not matter', [rule('opt-out', '*', 'US')], 'FR', 'opt-out'],
    ['a group in the law map', LAW_MAP, 'IT', 'opt-in'],
    ['a country listed beside a group', LAW_MAP, 'CH', 'opt-in'],
    ['the catch-all of the law map', LAW_MAP, 'JP', 'notice-only'],
    // `*` and unknown.
    ['* covers unknown', [rule('notice-only', '*')], null, 'notice-only'],
    ['* covers any country', [rule('notice-only', '*')], 'BR', 'notice-only'],
    ['unknown matches no country or group', [rule('opt-out', 'US', 'EEA')], null, 'opt-in'],
    ['unknown falls to the catch-all', LAW_MAP, null, 'notice-only'],
    // No match.
    ['no rule matching gives opt-in', [rule('opt-out', 'US')], 'FR', 'opt-in'],
    ['no rules at all gives opt-in', [], 'FR', 'opt-in'],
    ['the default rules give opt-in everywhere', DEFAULT_REGION_RULES, 'US-CA', 'opt-in'],
    ['the default rules give opt-in to unknown', DEFAULT_REGION_RULES, null, 'opt-in'],
  ])('%s', (_name, rules, region, expected) => {
    expect(resolveRegime(rules, region)).toBe(expected);
  });

  it('EEA is exactly the EU plus IS, LI and NO', () => {
    expect([...GROUPS.EEA].filter((code) => !GROUPS.EU.has(code)).sort()).toEqual(['IS', 'LI', 'NO']);
    const memberStates = [...GROUPS.EU].filter(
      (code) => !['GF', 'GP', 'MQ', 'RE', 'YT', 'MF', 'AX'].includes(code),
    );
    expect(memberStates).toHaveLength(27);
  });
});

describe('region codes', () => {
  it.each(['FR', 'US', 'GB', 'XK', 'US-CA', 'CA-QC', 'FR-IDF', 'GB-SCT', 'EEA', 'EU', '*'])(
    '%s is accepted',
    (code) => {
      expect(ruleCodeProblem(code)).toBeNull();
    },
  );

  it.each<[string, RegExp]>([
    ['ZZ', /not an assigned ISO 3166-1/],
    ['XX', /not an assigned ISO 3166-1/],
    ['UK', /not an assigned ISO 3166-1/], // the UK is GB
    ['EL', /not an assigned ISO 3166-1/], // EU usage for Greece; ISO says GR
    ['US-ZZ', /not an ISO 3166-2 subdivision/],
    ['FR-CA', /not an ISO 3166-2 subdivision/],
    ['QQ-CA', /does not start with an assigned/],
    ['fr', /not a region code/],
    ['USA', /not a region code/],
    ['EUR', /not a region code/],
    ['US-', /not a region code/],
    ['US-ABCD', /not a region code/],
    ['', /not a region code/],
    ['**', /not a region code/],
  ])('%j is refused', (code, message) => {
    expect(ruleCodeProblem(code)).toMatch(message);
  });
});

describe('regionRules validation', () => {
  it('reports each bad code at its JSON Pointer', () => {
    const rules = [rule('opt-in', 'FR', 'ZZ'), rule('opt-out', 'US-ZZ', 'US')];
    expect(regionRulesErrors(rules)).toEqual([
      {
        path: '/regionRules/0/regions/1',
        message: '"ZZ" is not an assigned ISO 3166-1 alpha-2 country code',
      },
      { path: '/regionRules/1/regions/0', message: '"US-ZZ" is not an ISO 3166-2 subdivision code' },
    ]);
    expect(regionRulesErrors(LAW_MAP)).toEqual([]);
  });

  it('throws a 422 validation_failed pointing at the bad code', () => {
    let error: unknown;
    try {
      assertRegionRules([rule('opt-in', 'QQ')]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'validation_failed',
      status: 422,
      options: { errors: [{ path: '/regionRules/0/regions/0' }] },
    });
  });

  it.each<[string, unknown, boolean]>([
    ['the default', [{ regions: ['*'], regime: 'opt-in' }], true],
    ['no rules', [], true],
    ['a rule listing every country', [{ regions: new Array(249).fill('FR'), regime: 'opt-in' }], true],
    ['an unknown regime', [{ regions: ['FR'], regime: 'opt-maybe' }], false],
    ['a rule with no code', [{ regions: [], regime: 'opt-in' }], false],
    ['a lower-case code', [{ regions: ['fr'], regime: 'opt-in' }], false],
    ['a number as a code', [{ regions: [33], regime: 'opt-in' }], false],
    ['an unknown member', [{ regions: ['FR'], regime: 'opt-in', note: 'x' }], false],
    ['a missing regime', [{ regions: ['FR'] }], false],
    ['more than 50 rules', new Array(51).fill({ regions: ['FR'], regime: 'opt-in' }), false],
    ['more than 300 codes in a rule', [{ regions: new Array(301).fill('FR'), regime: 'opt-in' }], false],
  ])('schema: %s → %s', (_name, value, valid) => {
    expect(Value.Check(RegionRules, value)).toBe(valid);
  });

  it.each<[unknown, boolean]>([
    [30, true],
    [180, true],
    [395, true],
    [29, false],
    [396, false],
    [90.5, false],
    ['180', false],
  ])('consentMaxAgeDays %j → %s', (value, valid) => {
    expect(Value.Check(ConsentMaxAgeDays, value)).toBe(valid);
  });

  it('defaults: rules * → opt-in, 180 days (applied by the service, not by the schemas)', () => {
    expect(DEFAULT_REGION_RULES).toEqual([{ regions: ['*'], regime: 'opt-in' }]);
    expect(DEFAULT_CONSENT_MAX_AGE_DAYS).toBe(180);
    // A schema default would be filled into every PATCH that leaves the field out, resetting it.
    expect(Value.Default(RegionRules, undefined)).toBeUndefined();
    expect(Value.Default(ConsentMaxAgeDays, undefined)).toBeUndefined();
  });
});

// store-independent: region rules, pure functions
