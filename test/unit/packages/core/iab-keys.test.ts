import { GVL, PurposeRestriction, RestrictionType, TCModel, TCString } from '@iabtechlabtcf/core';
import { describe, expect, it } from 'vitest';
import { bitString, cmpKeys, tcStringKeys, writeKeys } from '../../../../packages/core/src/iab-keys.ts';
import { buildVendorList } from '../../../helpers/gvl.ts';
import { expectSpecTypes } from '../../../packages/core/in-app-spec.ts';

/**
 * The IABTCF_ keys of IAB's CMP API for mobile, from TC strings made by IAB's own encoder
 * (@iabtechlabtcf/core) and checked against its decoder: no service needed, the table is pure.
 */
const CMP = { cmpId: 300, cmpVersion: 2, tcfPolicyVersion: 5, gdprApplies: true };

function encoded(publisher = false): string {
  const model = new TCModel(new GVL(buildVendorList({ version: 100 }) as never));
  model.cmpId = 300;
  model.cmpVersion = 2;
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'FR';
  model.purposeOneTreatment = true;
  model.consentScreen = 1;
  model.purposeConsents.set([1, 2, 7]);
  model.purposeLegitimateInterests.set([2, 10]);
  model.vendorConsents.set([2, 8]);
  model.vendorLegitimateInterests.set([21]);
  model.specialFeatureOptins.set([2]);
  model.vendorsDisclosed.set([1, 2, 8, 21]);
  model.publisherRestrictions.add(2, new PurposeRestriction(7, RestrictionType.REQUIRE_CONSENT));
  model.publisherRestrictions.add(8, new PurposeRestriction(2, RestrictionType.NOT_ALLOWED));
  model.publisherRestrictions.add(21, new PurposeRestriction(2, RestrictionType.NOT_ALLOWED));
  if (publisher) {
    model.publisherConsents.set([1, 3]);
    model.publisherLegitimateInterests.set([2]);
    model.numCustomPurposes = 3;
    model.publisherCustomConsents.set([1, 3]);
    model.publisherCustomLegitimateInterests.set([2]);
  }
  return TCString.encode(model);
}

describe('IABTCF_ keys from a TC string', () => {
  it('writes integers as numbers and bit fields as 0 and 1, as the decoder reads the string', () => {
    const tc = encoded();
    const keys = tcStringKeys(tc, CMP, '2~1.35~dv.');
    const decoded = TCString.decode(tc);
    expectSpecTypes(keys);
    expect(keys).toMatchObject({
      IABTCF_CmpSdkID: 300,
      IABTCF_CmpSdkVersion: 2,
      IABTCF_PolicyVersion: 5,
      IABTCF_gdprApplies: 1,
      IABTCF_PublisherCC: 'FR',
      IABTCF_PurposeOneTreatment: 1,
      IABTCF_UseNonStandardTexts: 0,
      IABTCF_TCString: tc,
      IABTCF_PurposeConsents: '1100001',
      IABTCF_PurposeLegitimateInterests: '0100000001',
      IABTCF_VendorConsents: '01000001',
      IABTCF_VendorLegitimateInterests: `${'0'.repeat(20)}1`,
      IABTCF_SpecialFeaturesOptIns: '01',
      IABTCF_AddtlConsent: '2~1.35~dv.',
      // Purpose 2: vendors 8 and 21 not allowed, encoded as the range 8-21 (the list has no vendor
      // between them), which the decoder reads back as such; purpose 7: vendor 2 requires consent.
      IABTCF_PublisherRestrictions2: `_______${'0'.repeat(14)}`,
      IABTCF_PublisherRestrictions7: '_1',
    });
    // Every bit field says what the decoder says, id by id.
    for (const [key, vector] of [
      ['IABTCF_VendorConsents', decoded.vendorConsents],
      ['IABTCF_PurposeConsents', decoded.purposeConsents],
      ['IABTCF_SpecialFeaturesOptIns', decoded.specialFeatureOptins],
    ] as const) {
      const bits = keys[key] as string;
      for (let id = 1; id <= 30; id++) expect(bits[id - 1] === '1', `${key} ${id}`).toBe(vector.has(id));
    }
    for (const value of Object.values(keys))
      if (typeof value === 'string' && value !== tc && !value.includes('~'))
        expect(value).toMatch(/^[A-Z]{2}$|^[01_2]*$/);
  });

  it('writes the publisher segment when the string has one, and empty bit fields when it has none', () => {
    const withPublisher = tcStringKeys(encoded(true), CMP);
    expectSpecTypes(withPublisher);
    expect(withPublisher).toMatchObject({
      IABTCF_PublisherConsent: '101',
      IABTCF_PublisherLegitimateInterests: '01',
      IABTCF_PublisherCustomPurposesConsents: '101',
      IABTCF_PublisherCustomPurposesLegitimateInterests: '01',
    });
    const without = tcStringKeys(encoded(), CMP);
    expect(without.IABTCF_PublisherConsent).toBe('');
    expect(without.IABTCF_PublisherCustomPurposesConsents).toBe('');
    expect(without).not.toHaveProperty('IABTCF_AddtlConsent');
  });

  it('says which CMP runs and whether GDPR applies before any choice', () => {
    expect(cmpKeys({ ...CMP, gdprApplies: false })).toEqual({
      IABTCF_CmpSdkID: 300,
      IABTCF_CmpSdkVersion: 2,
      IABTCF_PolicyVersion: 5,
      IABTCF_gdprApplies: 0,
    });
    expect(bitString({ maxId: 0, has: () => false })).toBe('');
  });

  it('removes the keys it no longer sets, and sets the rest', async () => {
    const written = new Map<string, string | number>();
    const writer = {
      set: (key: string, value: string | number) => void written.set(key, value),
      remove: (key: string) => void written.delete(key),
    };
    const first = await writeKeys(writer, tcStringKeys(encoded(), CMP), []);
    expect(written.has('IABTCF_PublisherRestrictions7')).toBe(true);
    const after = await writeKeys(writer, cmpKeys(CMP), first);
    expect([...written.keys()].sort()).toEqual(Object.keys(cmpKeys(CMP)).sort());
    expect(after).toEqual(Object.keys(cmpKeys(CMP)));
  });
});
