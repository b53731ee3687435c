import type { UiStrings } from '../../strings.ts';
import { primaryOf } from './language-tag.ts';
import { CENTRAL } from './languages/central.ts';
import { EAST } from './languages/east.ts';
import { NORTH } from './languages/north.ts';
import { WEST } from './languages/west.ts';

/**
 * The TCF layers' own sentences. The names and descriptions of purposes, features, stacks and data
 * categories come from the vendor list's language file; only the layers' framing is ours, in the
 * SDK's languages (English otherwise). `{n}` is replaced by a number.
 */
export interface TcfStrings {
  /** First layer. */
  intro: string;
  vendorCount: string;
  seeVendors: string;
  purposesHeading: string;
  specialFeaturesNote: string;
  legitimateInterest: string;
  withdraw: string;
  scope: string;
  ownPurposes: string;
  manage: string;
  /** Second layer. */
  manageTitle: string;
  manageIntro: string;
  purposes: string;
  specialPurposes: string;
  specialPurposesNote: string;
  features: string;
  featuresNote: string;
  specialFeatures: string;
  vendors: string;
  consent: string;
  objection: string;
  optIn: string;
  details: string;
  vendorPurposes: string;
  vendorLegInt: string;
  vendorSpecialPurposes: string;
  vendorFeatures: string;
  vendorSpecialFeatures: string;
  retention: string;
  dataCategories: string;
  /** `{d}`: a duration, formatted for the language (duration.ts). */
  storage: string;
  session: string;
  refresh: string;
  noRefresh: string;
  nonCookie: string;
  /** A vendor's storage disclosure, item by item: its heading, the kinds of storage, their words. */
  storageList: string;
  cookie: string;
  web: string;
  app: string;
  sessionShort: string;
  refreshed: string;
  storageMissing: string;
  legIntClaim: string;
  partnerCount: string;
  illustrations: string;
  ownTitle: string;
  /** Google Additional Consent's section (additional-consent.ts): heading, introduction, a provider without a name. */
  acHeading: string;
  acIntro: string;
  acProvider: string;
  /**
   * The banner's own words the layers use, for languages the SDK's banner does not ship (sdk.js
   * keeps its four; these live in tcf.js only, which only TCF visitors load).
   */
  ui?: Pick<UiStrings, 'title' | 'accept' | 'reject' | 'save' | 'required' | 'policy' | 'choices' | 'newTab'>;
}

const en: TcfStrings = {
  intro:
    'We and our partners store and access information on your device, such as cookies and unique identifiers, and process personal data such as browsing data, for the purposes below.',
  vendorCount: 'We work with {n} partners (vendors).',
  seeVendors: 'Their list, with what each does, is under "Manage options".',
  purposesHeading: 'With your permission, we and our partners may:',
  specialFeaturesNote: 'Some of these are special features that are only used if you opt in.',
  legitimateInterest:
    'Some partners do not ask for consent but rely on their legitimate interest to process your data. You have the right to object to it under "Manage options"; "Reject all" objects for you.',
  withdraw:
    'You can withdraw your consent or change your choices at any time through the "{choices}" link on this site.',
  scope: 'Your choices apply to this site only.',
  ownPurposes: 'This site also asks for:',
  manage: 'Manage options',
  manageTitle: 'Manage options',
  manageIntro:
    'Choose what you allow. Nothing is allowed unless you switch it on; legitimate interests apply unless you object.',
  purposes: 'Purposes',
  specialPurposes: 'Special purposes',
  specialPurposesNote: 'Partners use these without asking, to run and secure the service. For information.',
  features: 'Features',
  featuresNote: 'Partners may combine the purposes above with these. For information.',
  specialFeatures: 'Special features',
  vendors: 'Partners (vendors)',
  consent: 'Consent',
  objection: 'Legitimate interest (switch off to object)',
  optIn: 'Allow',
  details: 'Details of {name}',
  vendorPurposes: 'Purposes (consent)',
  vendorLegInt: 'Purposes (legitimate interest)',
  vendorSpecialPurposes: 'Special purposes',
  vendorFeatures: 'Features',
  vendorSpecialFeatures: 'Special features',
  retention: 'Data kept for',
  dataCategories: 'Data used',
  storage: 'Stores cookies for up to {d}.',
  session: 'Uses session cookies, deleted when you close your browser.',
  refresh: 'Its cookies may be refreshed, which restarts their duration.',
  noRefresh: 'Its cookies are not refreshed.',
  nonCookie: 'Also uses other ways to store or access information on your device.',
  storageList: 'What it stores on your device',
  cookie: 'cookie',
  web: 'web storage',
  app: 'app storage',
  sessionShort: 'session',
  refreshed: 'refreshed',
  storageMissing: 'The details of its storage could not be retrieved.',
  legIntClaim: 'Legitimate interest at stake',
  partnerCount: 'Partners asking consent: {c}. Claiming a legitimate interest: {l}.',
  illustrations: 'Examples',
  ownTitle: 'This site’s own purposes',
  acHeading: 'Other ad technology providers (Google Additional Consent)',
  acIntro:
    'These providers are not on IAB Europe’s vendor list. Google’s Additional Consent passes your choice to them.',
  acProvider: 'Google ad technology provider',
};

/**
 * The layers' languages: English and every language of the EU and EEA that IAB publishes purpose
 * translations for (the EU's official languages but Irish, for which IAB has none, and Norwegian
 * and Icelandic). A layer is drawn in one of them as a whole, never mixed.
 */
const TABLE: Record<string, TcfStrings> = { en, ...WEST, ...NORTH, ...CENTRAL, ...EAST };

/** The layers' own words in `language` (a primary subtag the layers have), English otherwise. */
export function tcfStringsFor(language: string): TcfStrings {
  return TABLE[primaryOf(language)] ?? en;
}

export { primaryOf };

/**
 * The language the layers are shown in: the visitor's (its primary subtag: `fr-CA` is French) when
 * the layers have their own sentences in it AND the service served the vendor list's declarations
 * in it (`served`, the slice's Content-Language); else English, for the whole of both layers. The
 * TC string's consentLanguage is this language.
 */
export function layerLanguage(requested: string, served: string | null): string {
  const primary = primaryOf(requested);
  return primary !== 'en' && TABLE[primary] && served !== null && primaryOf(served) === primary
    ? primary
    : 'en';
}

/** A sentence with its `{key}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, key: string) => String(values[key] ?? ''));
