import {
  Base64Url,
  GVL,
  IntEncoder,
  PurposeRestriction,
  TCModel,
  TCString,
  VendorVectorEncoder,
} from '@iabtechlabtcf/core';
import { describe, expect, it } from 'vitest';
import { TCF_RELEASE } from '../../../../src/modules/tcf/settings/tcf-settings.service.ts';
import type { TcStringContext } from '../../../../src/modules/tcf/tc-strings/tc-string.schemas.ts';
import { createTcStringCheck } from '../../../../src/modules/tcf/tc-strings/tc-string.ts';
import {
  MAX_SEGMENTS,
  MAX_TC_STRING_LENGTH,
  MAX_VISITED_IDS,
  tcStringBoundsError,
} from '../../../../src/modules/tcf/tc-strings/tc-string-bounds.ts';
import { buildVendorList, TEST_VENDORS } from '../../../helpers/gvl.ts';

/** The library's range encoder (declared private in its types, public in its code). */
const rangeEncoding = (ranges: number[][]): string =>
  (VendorVectorEncoder as unknown as { buildRangeEncoding(r: number[][]): string }).buildRangeEncoding(
    ranges,
  );

/** A TC string as the SDK makes one, by the library's own encoder, on the test vendor list. */
function encoded(options: { cmpId?: number; vendorListVersion?: number; vendors?: number[] } = {}) {
  const model = new TCModel(new GVL(buildVendorList({ version: options.vendorListVersion ?? 100 }) as never));
  model.cmpId = options.cmpId ?? 300;
  model.cmpVersion = TCF_RELEASE;
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.purposeConsents.set([1, 2, 4]);
  model.vendorConsents.set(options.vendors ?? [2, 8]);
  model.vendorLegitimateInterests.set([1, 21]);
  model.specialFeatureOptins.set([1]);
  model.vendorsDisclosed.set([1, 2, 8, 21, 32]);
  return TCString.encode(model);
}

/**
 * Hostile core strings, assembled from the library's own field encoders (its encoder never makes
 * such ranges): the fixed fields of a real string, then vendor consents as `ranges` range entries
 * of 1..`last`, empty legitimate interests, and `restrictions` publisher restrictions of the same ranges.
 */
function hostile(options: { ranges: number; last?: number; restrictions?: number }) {
  const fixed = Base64Url.decode(encoded().split('.')[0]).slice(0, 213);
  const ranges = Array.from({ length: options.ranges }, () => [1, options.last ?? 65535]);
  const restrictionBits = Array.from(
    { length: options.restrictions ?? 0 },
    (_, i) =>
      IntEncoder.encode((i % 10) + 1, 6) +
      IntEncoder.encode(Math.floor(i / 10) % 3, 2) +
      rangeEncoding(ranges),
  ).join('');
  return Base64Url.encode(
    fixed +
      IntEncoder.encode(65535, 16) +
      '1' +
      rangeEncoding(ranges) +
      IntEncoder.encode(0, 16) +
      '0' +
      IntEncoder.encode(options.restrictions ?? 0, 12) +
      restrictionBits,
  );
}

const timed = <T>(fn: () => T) => {
  const started = performance.now();
  const result = fn();
  return { result, ms: performance.now() - started };
};

describe('tcStringBoundsError', () => {
  it('real strings pass: the SDK’s, vendor ids up to 65535, publisher restrictions', () => {
    expect(tcStringBoundsError(encoded())).toBeNull();
    // A list of 2,001 vendors up to the highest id a string can carry, every one consented to.
    const ids = [...Array.from({ length: 2000 }, (_, i) => i + 1), 65535];
    const big = buildVendorList({ vendors: ids.map((id) => ({ id, name: `Vendor ${id}` })) });
    const all = new TCModel(new GVL(big as never));
    all.cmpId = 300;
    all.vendorConsents.set(ids);
    all.vendorsDisclosed.set(ids);
    const allString = TCString.encode(all);
    expect(tcStringBoundsError(allString)).toBeNull();
    expect(TCString.decode(allString).vendorConsents.size).toBe(ids.length);

    const restricted = new TCModel(new GVL(buildVendorList() as never));
    restricted.cmpId = 300;
    restricted.publisherRestrictions.add(2, new PurposeRestriction(2, 1));
    restricted.publisherRestrictions.add(8, new PurposeRestriction(7, 0));
    const value = TCString.encode(restricted);
    expect(tcStringBoundsError(value)).toBeNull();
    expect(TCString.decode(value).publisherRestrictions.numRestrictions).toBeGreaterThan(0);
  });

  // Times are bounded loosely (the test machine may be shared); what they guard is the order of
  // magnitude: the library alone spends about 0.2 s on 100 such ranges and 3.5 s on 1,800.
  it('refuses at once what would make the decoder walk too many ids', () => {
    for (const value of [
      hostile({ ranges: 100 }),
      hostile({ ranges: 1800 }),
      hostile({ ranges: 2, restrictions: 30 }),
    ]) {
      const { result, ms } = timed(() => tcStringBoundsError(value));
      expect(result).toEqual({
        message: `it makes the decoder visit more than ${MAX_VISITED_IDS} vendor ids`,
      });
      expect(ms).toBeLessThan(100);
    }
  });

  it('at the bound, the library decodes in milliseconds, not seconds', () => {
    const atBound = hostile({ ranges: 1, last: MAX_VISITED_IDS });
    expect(tcStringBoundsError(atBound)).toBeNull();
    expect(timed(() => TCString.decode(atBound)).ms).toBeLessThan(500);
    const restrictions = hostile({ ranges: 1, last: 1000, restrictions: 18 });
    expect(tcStringBoundsError(restrictions)).toBeNull();
    expect(timed(() => TCString.decode(restrictions)).ms).toBeLessThan(500);
    expect(tcStringBoundsError(hostile({ ranges: 1, last: 1000, restrictions: 21 }))).toEqual({
      message: `it makes the decoder visit more than ${MAX_VISITED_IDS} vendor ids`,
    });
  });

  it('with the channel’s highest vendor id: a range past it is refused as tc_vendor_not_selected, before decoding', () => {
    // One range 1..19,999: 51 characters that the decoder would expand into 19,999 ids.
    const range = hostile({ ranges: 1, last: 19_999 });
    expect(tcStringBoundsError(range)).toBeNull();
    const { result, ms } = timed(() => tcStringBoundsError(range, 32));
    expect(result).toEqual({
      message: 'names vendor 19999, which this channel did not choose (its highest vendor id is 32)',
      rule: 'tc_vendor_not_selected',
    });
    expect(ms).toBeLessThan(100);
    // Ranges and bit fields within it pass (bit fields are left to the decoded rules).
    expect(tcStringBoundsError(hostile({ ranges: 1, last: 32 }), 32)).toBeNull();
    expect(tcStringBoundsError(encoded(), 32)).toBeNull();
    expect(tcStringBoundsError(encoded(), 8)).toBeNull();
  });

  it('too long, too many segments, not TCF v2, not base64url', () => {
    const refused = (value: string) => tcStringBoundsError(value)?.message;
    expect(refused('A'.repeat(MAX_TC_STRING_LENGTH + 1))).toBe(
      `it is longer than ${MAX_TC_STRING_LENGTH} characters`,
    );
    expect(refused(`${encoded()}${'.IAAA'.repeat(MAX_SEGMENTS)}`)).toBe(
      `it has more than ${MAX_SEGMENTS} segments`,
    );
    // A TCF v1 string (version 1): the service's CMP makes v2 strings only.
    expect(refused('BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA')).toBe(
      'its version is 1; only TCF v2 strings are accepted',
    );
    expect(refused('CP!x')).toBe('it is not base64url');
    expect(refused(`${encoded().split('.')[0]}..`)).toBe('it has an empty segment');
    // Cut short: left to the library, which refuses it having walked nothing more.
    expect(tcStringBoundsError(encoded().slice(0, 20))).toBeNull();
  });
});

describe('createTcStringCheck', () => {
  const check = createTcStringCheck({
    vendorListFacts: async (version: number) =>
      version === 100 ? { policyVersion: 5, highestPurposeId: 11 } : null,
  }).check;
  const vendors = TEST_VENDORS.map((v) => ({
    id: v.id,
    purposes: v.purposes ?? [],
    legIntPurposes: v.legIntPurposes ?? [],
    flexiblePurposes: v.flexiblePurposes ?? [],
    specialFeatures: v.specialFeatures ?? [],
  }));
  const context = (overrides: Partial<TcStringContext> = {}): TcStringContext => ({
    cmpId: 300,
    vendorIds: [1, 2, 8, 21, 32],
    consentMaxAgeDays: 180,
    // Required purposes only: the string needs no Publisher TC segment to carry a choice of them.
    purposes: [
      { key: 'necessary', required: true },
      { key: 'security', required: true },
    ],
    decisions: { necessary: 'granted', security: 'granted' },
    channel: {
      cmpVersion: TCF_RELEASE,
      publisherCountryCode: 'FR',
      purposeOneTreatment: false,
      languages: ['en'],
      vendors,
    },
    now: new Date(),
    ...overrides,
  });

  it('a string of the channel’s CMP on a known list: the summary the evidence keeps, from the library', async () => {
    expect(await check(encoded(), context())).toEqual({
      tcf: {
        vendorListVersion: 100,
        purposeConsents: [1, 2, 4],
        vendorConsents: [2, 8],
        specialFeatureOptins: [1],
        purposeLegitimateInterests: [],
        vendorLegitimateInterests: [1, 21],
        vendorsDisclosed: [1, 2, 8, 21, 32],
        policyVersion: 5,
        consentScreen: 0,
      },
    });
  });

  it('garbage, another CMP id, an unknown vendor list version, a hostile string: why not', async () => {
    const problems = async (value: string, over: Partial<TcStringContext> = {}) =>
      (await check(value, context(over))).problems;
    expect(await problems('garbage!')).toEqual([
      { message: 'is not a TC string this service accepts: it is not base64url' },
    ]);
    expect((await problems('CAAAAAAA'))?.[0].message).toMatch(/^is not a TC string that decodes: /);
    expect(await problems(encoded({ cmpId: 301 }))).toEqual([
      { rule: 'tc_channel_mismatch', message: "names CMP id 301, not this channel's (300)" },
    ]);
    expect(await problems(encoded({ vendorListVersion: 99 }))).toEqual([
      { message: 'names vendor list version 99, which this service does not hold' },
    ]);
    // A channel whose vendors reach the highest id a string can name: the visit bound decides.
    expect(await problems(hostile({ ranges: 1800 }), { vendorIds: [1, 65535] })).toEqual([
      {
        message: `is not a TC string this service accepts: it makes the decoder visit more than ${MAX_VISITED_IDS} vendor ids`,
      },
    ]);
    // The channel's vendors decide first: ranges past its highest one are not decoded.
    expect(await problems(hostile({ ranges: 1800 }), { vendorIds: [8] })).toEqual([
      {
        message: 'names vendor 65535, which this channel did not choose (its highest vendor id is 8)',
        rule: 'tc_vendor_not_selected',
      },
    ]);
  });

  it('the named rules, each once, in their order', async () => {
    // Vendors 21 and 32 left out of the channel's choice: named once, though consented and disclosed.
    expect(await check(encoded(), context({ vendorIds: [1, 2, 8] }))).toEqual({
      problems: [
        { rule: 'tc_vendor_not_selected', message: 'names vendor 21, 32, which this channel did not choose' },
      ],
    });
    // The publisher's own legitimate interest for a consent-only purpose (the library's encoder keeps it).
    const publisherLi = new TCModel(new GVL(buildVendorList() as never));
    publisherLi.cmpId = 300;
    publisherLi.cmpVersion = TCF_RELEASE;
    publisherLi.publisherCountryCode = 'FR';
    publisherLi.publisherLegitimateInterests.set([2, 4]);
    expect(await check(TCString.encode(publisherLi), context())).toEqual({
      problems: [
        {
          rule: 'tc_purpose_li_forbidden',
          message: 'signals legitimate interest for purpose 4, which the TCF Policies allow on consent only',
        },
      ],
    });
    const tooOld = context({ now: new Date(Date.now() + 400 * 86_400_000), consentMaxAgeDays: 30 });
    expect((await check(encoded(), tooOld)).problems?.map((p) => p.rule)).toEqual([
      'tc_created_out_of_range',
      'tc_last_updated',
    ]);
  });
});

// store-independent: TC string encoding, pure functions
