import { expect } from 'vitest';

/**
 * The key tables of IAB's in-app specifications, as the tests compare written keys with them:
 * the TCF CMP API's ("In-App Details": `Number`, `String`, `Binary String`, and the restrictions'
 * `String ['0','1', or '2']`), Google's Additional Consent key, and the GPP CMP API's ("In-App Key
 * Names": every key `String`, lists of ids joined with `_`).
 */
type SpecType = 'number' | 'string' | 'binary' | 'restrictions' | 'ids';

const TCF: Record<string, SpecType> = {
  IABTCF_CmpSdkID: 'number',
  IABTCF_CmpSdkVersion: 'number',
  IABTCF_PolicyVersion: 'number',
  IABTCF_gdprApplies: 'number',
  IABTCF_PublisherCC: 'string',
  IABTCF_PurposeOneTreatment: 'number',
  IABTCF_UseNonStandardTexts: 'number',
  IABTCF_TCString: 'string',
  IABTCF_VendorConsents: 'binary',
  IABTCF_VendorLegitimateInterests: 'binary',
  IABTCF_PurposeConsents: 'binary',
  IABTCF_PurposeLegitimateInterests: 'binary',
  IABTCF_SpecialFeaturesOptIns: 'binary',
  IABTCF_PublisherConsent: 'binary',
  IABTCF_PublisherLegitimateInterests: 'binary',
  IABTCF_PublisherCustomPurposesConsents: 'binary',
  IABTCF_PublisherCustomPurposesLegitimateInterests: 'binary',
  IABTCF_AddtlConsent: 'string',
};

const GPP: Record<string, SpecType> = {
  IABGPP_HDR_Version: 'string',
  IABGPP_HDR_Sections: 'ids',
  IABGPP_HDR_GppString: 'string',
  IABGPP_GppSID: 'ids',
};

function specTypeOf(key: string): SpecType | undefined {
  if (/^IABTCF_PublisherRestrictions\d+$/.test(key)) return 'restrictions';
  if (/^IABGPP_\d+_String$/.test(key)) return 'string';
  return TCF[key] ?? GPP[key];
}

/** Every key is one of the tables' and has the type the table gives it. */
export function expectSpecTypes(keys: Map<string, string | number> | Record<string, string | number>) {
  const entries = keys instanceof Map ? [...keys] : Object.entries(keys);
  for (const [key, value] of entries) {
    const type = specTypeOf(key);
    expect(type, `${key} is in no in-app key table`).toBeDefined();
    if (type === 'number') expect(Number.isInteger(value), `${key} is a Number`).toBe(true);
    else expect(typeof value, `${key} is a String`).toBe('string');
    if (type === 'binary') expect(value, key).toMatch(/^[01]*$/);
    if (type === 'restrictions') expect(value, key).toMatch(/^[012_]*$/);
    if (type === 'ids') expect(value, key).toMatch(/^(\d+(_\d+)*)?$/);
  }
}

/** A DefaultsWriter that keeps what it was given, as NSUserDefaults would. */
export function recordingWriter() {
  const keys = new Map<string, string | number>();
  return {
    keys,
    set: (key: string, value: string | number) => void keys.set(key, value),
    remove: (key: string) => void keys.delete(key),
    /** The written keys that start with `prefix`, sorted. */
    named: (prefix: string) => [...keys.keys()].filter((k) => k.startsWith(prefix)).sort(),
  };
}
