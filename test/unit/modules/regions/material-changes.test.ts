import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VisitorConfig } from '../../../../src/modules/channels/visitor-config.ts';
import { COUNTRY_CODES, SUBDIVISION_CODES } from '../../../../src/modules/regions/iso-3166-codes.ts';
import type { Regime, RegionRule } from '../../../../src/modules/regions/regions.schemas.ts';
import {
  consentRequiredSince,
  isReconsent,
  regimesDiffer,
  resolveRegime,
} from '../../../../src/modules/regions/regions.service.ts';

/** A stored snapshot (channels/visitor-config.ts) plus the regionRules snapshots will carry. */
type Snapshot = VisitorConfig & { regionRules?: RegionRule[]; consentMaxAgeDays?: number };

const base: Snapshot = {
  channelId: 'ch_1',
  siteKey: 'site_test_1',
  configVersion: 1,
  defaultLanguage: 'en',
  languages: ['de', 'en'],
  privacyPolicy: { url: 'https://example.com/privacy', version: '1' },
  rejectCooldownDays: 0,
  gppCmpId: null,
  gppSections: 'usnat',
  tcf: null,
  integrations: { microsoftUet: false, microsoftClarity: false },
  firstPartyPath: null,
  cookieDomain: null,
  crossDomain: false,
  imports: [],
  purposes: [
    {
      key: 'analytics',
      name: 'Analytics',
      description: 'Counts visits',
      legalBasis: 'consent',
      required: false,
      translations: { de: { name: 'Analyse', description: 'Zählt Besuche' } },
      consentModeSignals: ['analytics_storage'],
      gpcOptOut: false,
    },
    {
      key: 'essential',
      name: 'Essential',
      description: null,
      legalBasis: 'legitimate_interest',
      required: true,
      translations: {},
      consentModeSignals: [],
      gpcOptOut: false,
    },
  ],
  technologies: [{ name: 'Matomo', vendor: null, purposeKeys: ['analytics'], cookies: [] }],
  regionRules: [
    { regions: ['EEA', 'GB'], regime: 'opt-in' },
    { regions: ['US'], regime: 'opt-out' },
    { regions: ['*'], regime: 'notice-only' },
  ],
  consentMaxAgeDays: 180,
};

/** The next version: a copy of `base` with one change, made by `change`. */
function next(change: (config: Snapshot) => void): Snapshot {
  const config = structuredClone(base);
  config.configVersion = 2;
  change(config);
  return config;
}

const analytics = (config: Snapshot) => config.purposes[0];

describe('material changes: reconsent', () => {
  it.each<[string, (config: Snapshot) => void, boolean]>([
    // Material.
    [
      'a purpose added',
      (c) => c.purposes.push({ ...structuredClone(c.purposes[0]), key: 'ads', name: 'Ads' }),
      true,
    ],
    ['a legal basis changed', (c) => (analytics(c).legalBasis = 'legitimate_interest'), true],
    ['a required flag changed', (c) => (c.purposes[1].required = false), true],
    ['a default-language name changed', (c) => (analytics(c).name = 'Audience measurement'), true],
    [
      'a default-language description changed',
      (c) => (analytics(c).description = 'Counts and profiles'),
      true,
    ],
    ['a description added', (c) => (c.purposes[1].description = 'Keeps the site up'), true],
    ['the policy version changed', (c) => (c.privacyPolicy.version = '2'), true],
    ['a region’s regime changed', (c) => (c.regionRules![1].regime = 'opt-in'), true],
    [
      'a subdivision carved out',
      (c) => c.regionRules!.splice(1, 0, { regions: ['US-CA'], regime: 'opt-in' }),
      true,
    ],
    ['the catch-all changed (unknown visitors)', (c) => (c.regionRules![2].regime = 'opt-in'), true],
    ['a country added to a group’s rule', (c) => c.regionRules![0].regions.push('CH'), true],
    ['rules dropped for the default', (c) => delete (c as { regionRules?: unknown }).regionRules, true],
    // Not material.
    ['a translation changed', (c) => (analytics(c).translations.de.name = 'Statistik'), false],
    ['the GPP CMP id set', (c) => (c.gppCmpId = 300), false],
    ['US state GPP sections chosen', (c) => (c.gppSections = 'state'), false],
    [
      'Microsoft UET and Clarity turned on',
      (c) => (c.integrations = { microsoftUet: true, microsoftClarity: true }),
      false,
    ],
    [
      'a translation added',
      (c) => (analytics(c).translations.fr = { name: 'Mesure', description: null }),
      false,
    ],
    [
      'a technology added',
      (c) => c.technologies.push({ name: 'GA4', vendor: 'Google', purposeKeys: [], cookies: [] }),
      false,
    ],
    [
      'a technology’s cookies changed',
      (c) => c.technologies[0].cookies.push({ name: '_pk_id', domain: null, maxAgeSeconds: 1 }),
      false,
    ],
    ['the policy URL changed', (c) => (c.privacyPolicy.url = 'https://example.com/privacy-policy'), false],
    ['consent mode signals changed', (c) => (analytics(c).consentModeSignals = []), false],
    ['gpcOptOut changed', (c) => (analytics(c).gpcOptOut = true), false],
    ['consentMaxAgeDays changed', (c) => (c.consentMaxAgeDays = 90), false],
    ['a purpose removed', (c) => c.purposes.splice(0, 1), false],
    ['purposes reordered', (c) => c.purposes.reverse(), false],
    [
      'rules reordered without moving a region',
      (c) => c.regionRules!.splice(0, 2, c.regionRules![1], c.regionRules![0]),
      false,
    ],
    [
      'a group spelled out as its countries',
      (c) => (c.regionRules![0].regions = ['EU', 'IS', 'LI', 'NO', 'GB']),
      false,
    ],
    ['a shadowed rule added', (c) => c.regionRules!.push({ regions: ['JP'], regime: 'opt-out' }), false],
    [
      'a subdivision rule with its country’s regime',
      (c) => c.regionRules!.unshift({ regions: ['US-CA'], regime: 'opt-out' }),
      false,
    ],
    ['nothing changed (cosmetic only)', () => {}, false],
  ])('%s → %s', (_name, change, expected) => {
    expect(isReconsent(base, next(change))).toBe(expected);
  });

  it('the first version is material', () => {
    expect(isReconsent(null, base)).toBe(true);
  });

  it('a snapshot from before regions means the default rules', () => {
    const old = next((c) => delete (c as { regionRules?: unknown }).regionRules);
    expect(
      isReconsent(
        old,
        next((c) => (c.regionRules = [{ regions: ['*'], regime: 'opt-in' }])),
      ),
    ).toBe(false);
    expect(
      isReconsent(
        old,
        next((c) => (c.regionRules = [{ regions: ['US'], regime: 'opt-out' }])),
      ),
    ).toBe(true);
  });
});

describe('regimesDiffer compares effect, not text', () => {
  const r = (regime: RegionRule['regime'], ...regions: string[]): RegionRule => ({ regions, regime });
  it.each<[string, RegionRule[], RegionRule[], boolean]>([
    ['same rules', [r('opt-out', 'US')], [r('opt-out', 'US')], false],
    ['no rules versus an explicit opt-in catch-all', [], [r('opt-in', '*')], false],
    ['a rule that names only opt-in regions is a no-op', [], [r('opt-in', 'FR', 'US-CA')], false],
    ['EEA versus EU + IS LI NO', [r('opt-out', 'EEA')], [r('opt-out', 'EU', 'IS', 'LI', 'NO')], false],
    ['EEA versus EU', [r('opt-out', 'EEA')], [r('opt-out', 'EU')], true],
    [
      'a country versus all but one subdivision',
      [r('opt-out', 'US')],
      [r('opt-in', 'US-CA'), r('opt-out', 'US')],
      true,
    ],
    [
      'unknown visitors only',
      [r('opt-out', 'US'), r('opt-in', '*')],
      [r('opt-out', 'US'), r('notice-only', '*')],
      true,
    ],
  ])('%s → %s', (_name, a, b, expected) => {
    expect(regimesDiffer(a, b)).toBe(expected);
    expect(regimesDiffer(b, a)).toBe(expected);
  });
});

describe('consentRequiredSince', () => {
  it.each<[string, Array<{ version: number; reconsent: boolean }>, number]>([
    ['one version', [{ version: 1, reconsent: true }], 1],
    ['no versions yet', [], 1],
    [
      'the newest material version, not the newest version',
      [
        { version: 1, reconsent: true },
        { version: 2, reconsent: false },
        { version: 3, reconsent: true },
        { version: 4, reconsent: false },
      ],
      3,
    ],
    [
      'order of the list does not matter',
      [
        { version: 5, reconsent: false },
        { version: 4, reconsent: true },
        { version: 1, reconsent: true },
      ],
      4,
    ],
    [
      'only translation fixes since the first',
      [1, 2, 3].map((version) => ({ version, reconsent: version === 1 })),
      1,
    ],
  ])('%s → %i', (_name, versions, expected) => {
    expect(consentRequiredSince(versions)).toBe(expected);
  });
});

describe('regimesDiffer agrees with trying every region', () => {
  /** Every visitor region there is: unknown, each country, each subdivision. */
  const everyRegion: Array<string | null> = [
    null,
    ...COUNTRY_CODES.split(' '),
    'XK',
    ...SUBDIVISION_CODES.flatMap((line) => {
      const [country, codes] = line.split(':');
      return codes.split(' ').map((code) => `${country}-${code}`);
    }),
  ];
  const codes = [
    '*',
    'EU',
    'EEA',
    'US',
    'US-CA',
    'US-TX',
    'FR',
    'FR-IDF',
    'NO',
    'CA',
    'CA-QC',
    'GB',
    'RE',
    'JP',
  ];
  const ruleList = fc.array(
    fc.record({
      regions: fc.uniqueArray(fc.constantFrom(...codes), { minLength: 1, maxLength: 4 }),
      regime: fc.constantFrom<Regime>('opt-in', 'opt-out', 'notice-only'),
    }),
    { maxLength: 5 },
  );

  /** A list and a small edit of it: the borderline cases (one move, one regime, one code). */
  const editedPair = fc
    .tuple(
      ruleList,
      fc.nat(),
      fc.nat(),
      fc.constantFrom('swap', 'regime', 'drop-code', 'insert'),
      fc.constantFrom(...codes),
      fc.constantFrom<Regime>('opt-in', 'opt-out', 'notice-only'),
    )
    .map(([a, i, j, edit, code, regime]) => {
      const b = structuredClone(a);
      const x = a.length ? i % a.length : 0;
      const y = a.length ? j % a.length : 0;
      if (edit === 'swap' && a.length) [b[x], b[y]] = [b[y], b[x]];
      if (edit === 'regime' && a.length) b[x].regime = regime;
      if (edit === 'drop-code' && a.length && b[x].regions.length > 1)
        b[x].regions.splice(j % b[x].regions.length, 1);
      if (edit === 'insert') b.splice(x, 0, { regions: [code], regime });
      return [a, b] as const;
    });

  const agreesWithBruteForce = (a: RegionRule[], b: RegionRule[]) => {
    const bruteForce = everyRegion.some((region) => resolveRegime(a, region) !== resolveRegime(b, region));
    expect(regimesDiffer(a, b)).toBe(bruteForce);
  };

  it('differs exactly when some region gets another regime (independent lists)', () => {
    fc.assert(fc.property(ruleList, ruleList, agreesWithBruteForce), { numRuns: 200 });
  });

  it('differs exactly when some region gets another regime (a list and an edit of it)', () => {
    fc.assert(
      fc.property(editedPair, ([a, b]) => agreesWithBruteForce(a, b)),
      { numRuns: 400 },
    );
  });
});

// store-independent: material-change rules, pure functions
