import type { TCModel } from '@iabtechlabtcf/core';

/**
 * The rules a decoded TC string must keep against what the channel showed the visitor (the notice
 * it answered) and the vendor list it names, besides those of tc-string-rules.ts: what IAB's
 * validator, its reviewers and ad servers flag in strings that decode and name the right CMP
 * (docs/guides/tcf.md, "What the service refuses"). Pure: the model and what the caller holds.
 */

/** What these rules read of the notice: the channel's TCF settings as the visitor was served them. */
export interface TcChannelFacts {
  /** The CMP version the visitor's config carried: the pinned one, else the service's TCF release. */
  cmpVersion: number;
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  /** The notice's languages (BCP 47 tags): the layers are drawn in one of them, or in English. */
  languages: readonly string[];
  /** What each chosen vendor declares in the notice's vendor list version (deleted vendors absent). */
  vendors: readonly VendorDeclared[];
}

export interface VendorDeclared {
  id: number;
  purposes: readonly number[];
  legIntPurposes: readonly number[];
  flexiblePurposes: readonly number[];
  specialFeatures: readonly number[];
}

/** What the rules read of the vendor list version the string names. */
export interface ListFacts {
  policyVersion: number;
  /** The highest purpose id the list defines (11 in GVL v3): a purpose bit above it means nothing. */
  highestPurposeId: number;
}

export const CHANNEL_RULES = [
  'tc_last_updated',
  'tc_channel_mismatch',
  'tc_out_of_range',
  'tc_signal_not_declared',
] as const;
export type ChannelRule = (typeof CHANNEL_RULES)[number];

/**
 * The consentScreen values tcf.js writes: 0 for a choice made by the page's own calls
 * (acceptAll(), rejectAll()), 1 on the first layer, 2 on the second (sdk/src/tcf/layers/index.ts).
 */
export const CONSENT_SCREENS: readonly number[] = [0, 1, 2];
/** TCF v2 defines two special features (precise geolocation, device scanning). */
export const HIGHEST_SPECIAL_FEATURE = 2;
/**
 * The layers fall back to English when they lack sentences in the visitor's language or the
 * service holds no IAB translation of the list in it, so English is always a language they offer.
 */
const FALLBACK_LANGUAGE = 'EN';
/** How old a LastUpdated may be: the TCF Policies ask CMPs to refresh a choice at least every 13 months. */
const MAX_AGE_MONTHS = 13;

/** The purposes the TCF Policies allow on consent only (legitimate interest never counts for them). */
const CONSENT_ONLY: readonly number[] = [1, 3, 4, 5, 6];

const ids = (vector: { values(): IterableIterator<number> }) => [...vector.values()].sort((a, b) => a - b);
const some = (list: readonly (number | string)[]) =>
  list.length > 5 ? `${list.slice(0, 5).join(', ')} and ${list.length - 5} more` : list.join(', ');

/**
 * Midnight UTC of the day 13 calendar months before `now`'s: the same day of that month, or its
 * last day when it has fewer (13 months before 31 March 2027 is 28 February 2026, not 3 March).
 */
export function thirteenMonthsBefore(now: Date): number {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - MAX_AGE_MONTHS;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay));
}

/** LastUpdated: the same as Created (the policy asks CMPs to write both alike), and not too old. */
function lastUpdatedBreach(model: TCModel, now: Date): string | null {
  const created = new Date(model.created).getTime();
  const updated = new Date(model.lastUpdated).getTime();
  const day = (ms: number) =>
    Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : 'no valid date';
  if (updated !== created) {
    return `was last updated on ${day(updated)} but created on ${day(created)}: tcf.js writes LastUpdated equal to Created`;
  }
  if (updated < thirteenMonthsBefore(now)) {
    return `was last updated on ${day(updated)}, more than ${MAX_AGE_MONTHS} months ago: ask the visitor again`;
  }
  return null;
}

/** The string's settings that must be the channel's, one label per difference. */
function channelMismatches(model: TCModel, channel: TcChannelFacts): string[] {
  const found: string[] = [];
  if (Boolean(model.purposeOneTreatment) !== channel.purposeOneTreatment) {
    found.push(
      `PurposeOneTreatment ${model.purposeOneTreatment ? 1 : 0} (the channel's purposeOneTreatment is ${channel.purposeOneTreatment})`,
    );
  }
  if (String(model.publisherCountryCode).toUpperCase() !== channel.publisherCountryCode) {
    found.push(
      `PublisherCC ${model.publisherCountryCode} (the channel's publisherCountryCode is ${channel.publisherCountryCode})`,
    );
  }
  if (Number(model.cmpVersion) !== channel.cmpVersion) {
    found.push(`CmpVersion ${model.cmpVersion} (the channel's is ${channel.cmpVersion})`);
  }
  const offered = new Set([
    FALLBACK_LANGUAGE,
    ...channel.languages.map((tag) => tag.slice(0, 2).toUpperCase()),
  ]);
  const language = String(model.consentLanguage).toUpperCase();
  if (!offered.has(language)) {
    found.push(`ConsentLanguage ${language} (the layers offer ${[...offered].sort().join(', ')})`);
  }
  return found;
}

/** Values the format can carry that neither the vendor list nor the layers give a meaning to. */
function outOfRange(model: TCModel, list: ListFacts): string[] {
  const found: string[] = [];
  if (model.useNonStandardTexts)
    found.push('UseNonStandardTexts is set (the layers show the standard texts)');
  const purposes = [
    ...ids(model.purposeConsents),
    ...ids(model.purposeLegitimateInterests),
    ...ids(model.publisherConsents),
    ...ids(model.publisherLegitimateInterests),
  ].filter((id, i, all) => id > list.highestPurposeId && all.indexOf(id) === i);
  if (purposes.length > 0) {
    found.push(
      `purpose ${some(purposes.sort((a, b) => a - b))} (the vendor list's highest is ${list.highestPurposeId})`,
    );
  }
  const features = ids(model.specialFeatureOptins).filter((id) => id > HIGHEST_SPECIAL_FEATURE);
  if (features.length > 0)
    found.push(`special feature ${some(features)} (TCF v2 has ${HIGHEST_SPECIAL_FEATURE})`);
  const screen = Number(model.consentScreen);
  if (!CONSENT_SCREENS.includes(screen)) {
    found.push(`ConsentScreen ${screen} (the layers write ${CONSENT_SCREENS.join(', ')})`);
  }
  return found;
}

/**
 * Vendor signals the vendor's declarations cannot take. A consent bit needs something asked on
 * consent: a purpose (flexible ones included, which a restriction may move to consent) or a
 * special feature. A legitimate-interest bit needs a purpose that may rest on it (declared on
 * legitimate interest, or flexible), never 1 or 3–6: so a vendor that declares only special
 * purposes has none (TCF v2.4 removed that bit), and a chosen vendor the list has since deleted
 * neither. A vendor the channel did not choose is tc_vendor_not_selected's, not named twice.
 */
function undeclaredSignals(model: TCModel, channel: TcChannelFacts, selected: ReadonlySet<number>): string[] {
  const declared = new Map(channel.vendors.map((v) => [v.id, v]));
  const consentable = (v: VendorDeclared | undefined) =>
    !!v && v.purposes.length + v.flexiblePurposes.length + v.specialFeatures.length > 0;
  const interested = (v: VendorDeclared | undefined) =>
    !!v && [...v.legIntPurposes, ...v.flexiblePurposes].some((id) => !CONSENT_ONLY.includes(id));
  const found: string[] = [];
  const consents = ids(model.vendorConsents).filter(
    (id) => selected.has(id) && !consentable(declared.get(id)),
  );
  if (consents.length > 0)
    found.push(
      `consent for vendor ${some(consents)}, which declares no purpose on consent nor special feature`,
    );
  const interests = ids(model.vendorLegitimateInterests).filter(
    (id) => selected.has(id) && !interested(declared.get(id)),
  );
  if (interests.length > 0) {
    found.push(
      `legitimate interest for vendor ${some(interests)}, which declares no purpose that may rest on it`,
    );
  }
  return found;
}

export interface ChannelBreach {
  rule: ChannelRule;
  message: string;
}

/** The breaches of these rules, in the order of CHANNEL_RULES; empty when none is broken. */
export function channelRuleBreaches(
  model: TCModel,
  channel: TcChannelFacts,
  list: ListFacts,
  now: Date,
  /** The vendors the channel chose. */
  selected: ReadonlySet<number>,
): ChannelBreach[] {
  const breaches: ChannelBreach[] = [];
  const updated = lastUpdatedBreach(model, now);
  if (updated) breaches.push({ rule: 'tc_last_updated', message: updated });
  const mismatched = channelMismatches(model, channel);
  if (mismatched.length > 0) {
    breaches.push({
      rule: 'tc_channel_mismatch',
      message: `carries ${mismatched.join('; ')}: encode it with the channel's TCF settings as its config serves them`,
    });
  }
  const ranged = outOfRange(model, list);
  if (ranged.length > 0) breaches.push({ rule: 'tc_out_of_range', message: `carries ${ranged.join('; ')}` });
  const undeclared = undeclaredSignals(model, channel, selected);
  if (undeclared.length > 0) {
    breaches.push({
      rule: 'tc_signal_not_declared',
      message: `signals ${undeclared.join('; ')} in the vendor list`,
    });
  }
  return breaches;
}
