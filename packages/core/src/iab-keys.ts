import { GppModel } from '@iabgpp/cmpapi';
import { TCString } from '@iabtechlabtcf/core';
import type { Decisions, SiteConfig, TcfCmp } from '../../../sdk/src/types.ts';
import { type GppSection, gppStringNow } from './gpp.ts';
import type { StoredTc } from './stored-state.ts';
import type { DefaultsWriter } from './types.ts';

/**
 * A key's value as IAB's in-app specifications type it: the TCF's integers as numbers, the rest as
 * strings; every IABGPP_ key is a string (GPP's in-app table types them all String).
 */
export type IabValue = string | number;
export type IabKeys = Record<string, IabValue>;

/** The vectors of a decoded TC string, as far as the key table reads them. */
interface Vector {
  maxId: number;
  has(id: number): boolean;
}

/**
 * A bit field as the mobile keys write it: the character at index n is '1' when id n + 1 is set,
 * up to the highest id set (an app reads a missing position as '0').
 */
export function bitString(vector: Vector): string {
  let out = '';
  for (let id = 1; id <= vector.maxId; id++) out += vector.has(id) ? '1' : '0';
  return out;
}

/** The keys that say which CMP runs and whether GDPR applies: written before any choice too. */
export function cmpKeys(cmp: TcfCmp): IabKeys {
  return {
    IABTCF_CmpSdkID: cmp.cmpId,
    IABTCF_CmpSdkVersion: cmp.cmpVersion,
    IABTCF_PolicyVersion: cmp.tcfPolicyVersion,
    IABTCF_gdprApplies: cmp.gdprApplies ? 1 : 0,
  };
}

/** The restriction types as the mobile keys number them; '_' where a vendor has none. */
const RESTRICTION_CHARS = ['0', '1', '2'];

/**
 * The IABTCF_ keys of a TC string, every one read back from the string by IAB Tech Lab's own
 * decoder (@iabtechlabtcf/core), so the keys cannot say what the string does not. `addtlConsent`:
 * Google's Additional Consent string made with the same choice, when the channel has providers.
 */
export function tcStringKeys(tcString: string, cmp: TcfCmp, addtlConsent?: string | null): IabKeys {
  const model = TCString.decode(tcString);
  const keys: IabKeys = {
    ...cmpKeys(cmp),
    // The string's own CMP and policy version: the choice was made under them.
    IABTCF_CmpSdkID: model.cmpId,
    IABTCF_CmpSdkVersion: model.cmpVersion,
    IABTCF_PolicyVersion: model.policyVersion,
    IABTCF_PublisherCC: model.publisherCountryCode,
    IABTCF_PurposeOneTreatment: model.purposeOneTreatment ? 1 : 0,
    IABTCF_UseNonStandardTexts: model.useNonStandardTexts ? 1 : 0,
    IABTCF_TCString: tcString,
    IABTCF_VendorConsents: bitString(model.vendorConsents),
    IABTCF_VendorLegitimateInterests: bitString(model.vendorLegitimateInterests),
    IABTCF_PurposeConsents: bitString(model.purposeConsents),
    IABTCF_PurposeLegitimateInterests: bitString(model.purposeLegitimateInterests),
    IABTCF_SpecialFeaturesOptIns: bitString(model.specialFeatureOptins),
    IABTCF_PublisherConsent: bitString(model.publisherConsents),
    IABTCF_PublisherLegitimateInterests: bitString(model.publisherLegitimateInterests),
    IABTCF_PublisherCustomPurposesConsents: bitString(model.publisherCustomConsents),
    IABTCF_PublisherCustomPurposesLegitimateInterests: bitString(model.publisherCustomLegitimateInterests),
  };
  if (addtlConsent) keys.IABTCF_AddtlConsent = addtlConsent;
  const restrictions = model.publisherRestrictions;
  for (const purposeId of restrictions.getPurposes()) {
    const vendors = restrictions
      .getVendors()
      .filter((id) => restrictions.getRestrictionType(id, purposeId) !== undefined);
    const last = Math.max(0, ...vendors);
    let out = '';
    for (let id = 1; id <= last; id++) {
      const type = restrictions.getRestrictionType(id, purposeId);
      out += type === undefined ? '_' : RESTRICTION_CHARS[type];
    }
    keys[`IABTCF_PublisherRestrictions${purposeId}`] = out;
  }
  return keys;
}

/**
 * The IABGPP_ keys of a GPP string (IAB GPP CMP API, in-app details), read back from the string by
 * `@iabgpp/cmpapi`'s decoder: the header's version and section ids, the string, the sections in
 * force (`inForce`), and each section's own string (`IABGPP_<id>_String`, the part of the string
 * that encodes it). Lists of ids are joined with `_`, as the specification writes them ("2_7").
 */
export function gppKeys(gppString: string, inForce: number[]): IabKeys {
  const header = new GppModel(gppString).getHeader() as { Version: number; SectionIds: number[] };
  const parts = gppString.split('~');
  const keys: IabKeys = {
    IABGPP_HDR_Version: String(header.Version),
    IABGPP_HDR_Sections: header.SectionIds.join('_'),
    IABGPP_HDR_GppString: gppString,
    IABGPP_GppSID: inForce.join('_'),
  };
  header.SectionIds.forEach((id, i) => {
    keys[`IABGPP_${id}_String`] = parts[i + 1] ?? '';
  });
  return keys;
}

/**
 * Every in-app key the device has now: on TCF channels the CMP's own IABTCF_ keys, and the string's
 * once a decision holds with one (`tc`); where GPP applies, the IABGPP_ keys of the device's GPP
 * string (its one section in force). The keys of a state that no longer holds are absent, so
 * writeKeys removes them.
 */
export function keysNow(
  config: SiteConfig,
  gpp: GppSection | null,
  decisions: Decisions | null,
  tc: StoredTc | null,
): IabKeys {
  const tcf = config.tcfCmp ? (tc ? tcStringKeys(tc.tc, config.tcfCmp, tc.ac) : cmpKeys(config.tcfCmp)) : {};
  const gppString = gpp && gppStringNow(gpp, config, decisions, tc?.tc ?? null);
  return gpp && gppString ? { ...tcf, ...gppKeys(gppString, [gpp.id]) } : tcf;
}

/**
 * Hands `next` to the app's writer and removes every key of `previous` that `next` no longer has
 * (a restriction dropped, a choice forgotten, TCF turned off), so a vendor SDK never reads a key a
 * former state left. Returns the keys now written: the next call's `previous`.
 */
export async function writeKeys(
  writer: DefaultsWriter,
  next: IabKeys,
  previous: string[],
): Promise<string[]> {
  for (const key of previous) if (!(key in next)) await writer.remove(key);
  for (const [key, value] of Object.entries(next)) await writer.set(key, value);
  return Object.keys(next);
}
