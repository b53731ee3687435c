import { type GVL, PurposeRestriction, TCModel, TCString } from '@iabtechlabtcf/core';
import type { TcfConfig } from '../types.ts';
import { CONSENT_ONLY_PURPOSES, disclosureOf } from './layers/disclosure.ts';
import { restrictedList } from './layers/restrictions.ts';
import type { TcfChoice } from './layers/types.ts';

/**
 * The visitor's choice in the layers as a TC string, encoded by IAB Tech Lab's own library
 * (@iabtechlabtcf/core): nothing here writes a bit by hand. The string is service-specific (it
 * holds for this site only), names the operator's CMP, and takes the vendor list version, policy
 * version and consent language from the list the layers showed. Legitimate interest is set for
 * what the visitor did not object to, never for purposes 1 and 3 to 6 (the policy allows consent
 * only there), and DisclosedVendors lists exactly the vendors the layers showed: the channel's.
 * A vendor that is not in `gvl` (removed from the channel, or deleted by IAB) gets no consent nor
 * legitimate interest: the encoder drops every signal of a vendor its list lacks.
 *
 * `earlier`: the kept string this one re-encodes (a returning visitor's choice, against the
 * channel's current vendors and vendor list): the choice keeps the dates it was made on, the
 * language it was shown in and the layer it was made on.
 */
export function encodeChoice(gvl: GVL, tcf: EncodeSettings, choice: TcfChoice, earlier?: TCModel): string {
  const model = new TCModel(earlier ? speaking(gvl, earlier.consentLanguage) : gvl);
  if (earlier) {
    model.created = earlier.created;
    model.lastUpdated = earlier.lastUpdated;
    model.consentLanguage = earlier.consentLanguage;
  }
  model.consentScreen = choice.consentScreen ?? earlier?.consentScreen ?? 0;
  model.cmpId = tcf.cmpId;
  model.cmpVersion = tcf.cmpVersion;
  model.isServiceSpecific = true;
  model.publisherCountryCode = tcf.publisherCountryCode;
  model.purposeOneTreatment = tcf.purposeOneTreatment;
  model.purposeConsents.set(choice.purposeConsents);
  model.purposeLegitimateInterests.set(
    choice.purposeLegitimateInterests.filter((id) => !CONSENT_ONLY_PURPOSES.includes(id)),
  );
  model.vendorConsents.set(choice.vendorConsents);
  model.vendorLegitimateInterests.set(choice.vendorLegitimateInterests);
  model.specialFeatureOptins.set(choice.specialFeatureOptins);
  model.vendorsDisclosed.set(disclosureOf(gvl).vendorIds);
  // The channel's restrictions, as the server checks them (tc_publisher_restrictions); the
  // RestrictionType numbers are 0 not allowed, 1 consent required, 2 LI required.
  for (const { purposeId, type, vendorIds } of tcf.publisherRestrictions ?? []) {
    const restriction = new PurposeRestriction(purposeId, RESTRICTION_TYPES.indexOf(type));
    for (const id of vendorIds) model.publisherRestrictions.add(id, restriction);
  }
  // The channel's own purposes, as custom purposes of the Publisher TC segment in the channel's
  // order (custom purpose n is its n-th purpose): consent where the visitor's decision grants it.
  const keys = tcf.purposeKeys ?? [];
  model.numCustomPurposes = keys.length;
  model.publisherCustomConsents.set(
    keys.flatMap((key, i) => (choice.decisions[key] === 'granted' ? [i + 1] : [])),
  );
  return TCString.encode(model);
}

/** The channel's TCF settings, and its own purposes' keys in its order (the Publisher TC segment's). */
export type EncodeSettings = TcfConfig & { purposeKeys?: readonly string[] };

const RESTRICTION_TYPES = ['not_allowed', 'require_consent', 'require_li'] as const;

/**
 * `gvl` as the encoder sees it when it writes consentLanguage, which it takes from the list's
 * language, not from the model: for a re-encoded kept string that is the language the choice was
 * shown in (the visitor may read today's page in another), so the list is lent that language only.
 */
function speaking(gvl: GVL, consentLanguage: string): GVL {
  if (!consentLanguage || gvl.language.slice(0, 2).toUpperCase() === consentLanguage.toUpperCase())
    return gvl;
  return Object.create(gvl, { lang_: { value: consentLanguage.toUpperCase() } });
}

/**
 * What `cmpuishown` carries while the layers are up and nothing was chosen yet, as the CMP API asks:
 * every legitimate interest the shown vendors claim (transparency is given by showing them), no
 * consent, no special feature, and DisclosedVendors set.
 */
export function encodeTransparency(gvl: GVL, tcf: EncodeSettings): string {
  const shown = disclosureOf(restrictedList(gvl, tcf), { purposeOneTreatment: tcf.purposeOneTreatment });
  return encodeChoice(gvl, tcf, {
    purposeConsents: [],
    purposeLegitimateInterests: shown.liPurposes,
    vendorConsents: [],
    vendorLegitimateInterests: shown.liVendors,
    specialFeatureOptins: [],
    decisions: {},
  });
}

/** The ids a vector of a decoded string holds, ascending. */
function ids(vector: TCModel['purposeConsents']): number[] {
  const out: number[] = [];
  vector.forEach((on, id) => {
    if (on) out.push(id);
  });
  return out;
}

/** A kept string back as the layers' choice, so "Manage options" opens on what the visitor chose. */
export function choiceOf(model: TCModel, decisions: TcfChoice['decisions']): TcfChoice {
  return {
    purposeConsents: ids(model.purposeConsents),
    purposeLegitimateInterests: ids(model.purposeLegitimateInterests),
    vendorConsents: ids(model.vendorConsents),
    vendorLegitimateInterests: ids(model.vendorLegitimateInterests),
    specialFeatureOptins: ids(model.specialFeatureOptins),
    decisions,
  };
}

/**
 * A kept string, decoded, when it still speaks for this channel: it decodes, names the channel's
 * CMP and the vendor list's policy version (a new policy version voids earlier strings). Else null:
 * the visitor is asked again.
 */
export function stillValid(tcString: string, tcf: TcfConfig): TCModel | null {
  try {
    const model = TCString.decode(tcString);
    if (model.cmpId !== tcf.cmpId || Number(model.policyVersion) !== tcf.tcfPolicyVersion) return null;
    return model;
  } catch {
    return null;
  }
}
