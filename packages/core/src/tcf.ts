import { GVL, type VendorList } from '@iabtechlabtcf/core';
import type { Choice } from '../../../sdk/src/decisions.ts';
import { acConsentsOf, acShownOf, acStringOf } from '../../../sdk/src/tcf/ac-string.ts';
import { acceptAll, rejectAll } from '../../../sdk/src/tcf/layers/all-or-nothing.ts';
import { type Disclosure, disclosureOf } from '../../../sdk/src/tcf/layers/disclosure.ts';
import { primaryOf } from '../../../sdk/src/tcf/layers/language-tag.ts';
import { restrictedList } from '../../../sdk/src/tcf/layers/restrictions.ts';
import type { TcfChoice } from '../../../sdk/src/tcf/layers/types.ts';
import { choiceOf, type EncodeSettings, encodeChoice, stillValid } from '../../../sdk/src/tcf/tc-model.ts';
import type { Decisions, SiteConfig, Source, TcfConfig, TcSent } from '../../../sdk/src/types.ts';
import type { StoredTc } from './stored-state.ts';
import type { Transport } from './transport.ts';
import type { TcfVendorChoice, TcfView, VendorListJson } from './types.ts';

/** A TCF channel's vendor list slice and settings, as the encoder takes them. */
export interface TcfContext {
  gvl: GVL;
  settings: EncodeSettings;
  /** The language of the slice's declarations: the TC string's consentLanguage. */
  language: string;
  /** The slice as the service served it, for the app's own second layer. */
  vendorList: VendorListJson;
  /** What a visitor can choose, after the channel's publisher restrictions (what the web's layers offer). */
  offered: Disclosure;
}

/** The slice, asked of the client's own base URL (the path the config names), in `language`. */
async function fetchSlice(transport: Transport, tcf: TcfConfig, language: string) {
  const path = tcf.vendorListUrl.replace(/^https?:\/\/[^/]+/, '');
  const res = await transport.get(
    `${path}${path.includes('?') ? '&' : '?'}lang=${encodeURIComponent(language)}`,
  );
  if (!res.ok) throw new Error(`[consent-service] vendor list unavailable: HTTP ${res.status}`);
  return { json: (await res.json()) as VendorListJson, served: res.headers?.get('content-language') ?? null };
}

/** Whether IAB's library can write `primary` as a TC string's consentLanguage (Irish, say, it cannot). */
function isConsentLanguage(primary: string): boolean {
  try {
    GVL.consentLanguages.parseLanguage(primary);
    return true;
  } catch {
    return false;
  }
}

/**
 * The channel's slice of the vendor list, from the service, in the client's language as the web's
 * tcf.js asks for it (`lang`): the declarations (purposes, features, stacks) come translated when
 * the service holds IAB's translation, and `Content-Language` says which language it served. The
 * declarations and the TC string's consentLanguage are in one language, never mixed: the one
 * asked for when it was served, else English (asked for again when the answer said nothing). A
 * language IAB has no consent language for is asked for in English from the start.
 */
export async function loadTcf(
  transport: Transport,
  config: SiteConfig,
  language: string,
): Promise<TcfContext | null> {
  const tcf = config.tcf;
  if (!tcf) return null;
  const asked = isConsentLanguage(primaryOf(language)) ? primaryOf(language) : 'en';
  const first = await fetchSlice(transport, tcf, asked === 'en' ? 'en' : language);
  const { served } = first;
  const shown = asked !== 'en' && served !== null && primaryOf(served) === asked ? asked : 'en';
  // Declarations in a language other than the one asked for, or unsaid: English for both.
  const again = shown === 'en' && asked !== 'en' && (served === null || primaryOf(served) !== 'en');
  const { json } = again ? await fetchSlice(transport, tcf, 'en') : first;
  const list = json as unknown as VendorList;
  // GVL sets the string's consentLanguage from its language: the declarations'.
  const gvl = shown === 'en' ? new GVL(list) : new GVL(list, { language: shown });
  const settings: EncodeSettings = { ...tcf, purposeKeys: config.purposes.map((p) => p.key) };
  const offered = disclosureOf(restrictedList(gvl, tcf), { purposeOneTreatment: tcf.purposeOneTreatment });
  return { gvl, settings, language: shown, vendorList: json, offered };
}

/** The TC string's ConsentScreen: the app's first layer (the banner), its second, or none (the app's code). */
const SCREENS: Record<string, number> = { banner: 1, preference_center: 2 };

/** `ids` kept to those in `allowed`, ascending and once each. */
const within = (ids: readonly number[] | undefined, allowed: readonly number[]) =>
  [...new Set(ids ?? [])].filter((id) => allowed.includes(id)).sort((a, b) => a - b);

/**
 * An app's second-layer choice as the web's layers report theirs (TcfChoice): each id kept only
 * where the layers would offer a toggle for it (the channel's vendors, after its publisher
 * restrictions), so an app can grant no more than the web's "Manage options" could.
 */
export function vendorChoiceOf(ctx: TcfContext, input: TcfVendorChoice, decisions: Decisions): TcfChoice {
  const d = ctx.offered;
  const providers = (ctx.settings as TcfConfig).googleAdditionalConsent?.providerIds ?? [];
  return {
    purposeConsents: within(input.purposeConsents, d.consentPurposes),
    purposeLegitimateInterests: within(input.purposeLegitimateInterests, d.liPurposes),
    vendorConsents: within(input.vendorConsents, d.consentVendors),
    vendorLegitimateInterests: within(input.vendorLegitimateInterests, d.liVendors),
    specialFeatureOptins: within(input.specialFeatureOptins, d.specialFeatures),
    acConsents: within(input.acConsents, providers),
    decisions,
  };
}

/**
 * The TC (and Additional Consent) string of a choice, made as the web's layers make it (tc-model.ts):
 * "Accept all" consents to everything the channel's vendors disclose, "Reject all" refuses it all,
 * a second-layer choice (`vendors`) sets what it names. A choice per purpose of the channel's own
 * without `vendors` sets only those (the Publisher TC segment): no IAB purpose or vendor.
 */
export function tcStringFor(
  ctx: TcfContext,
  config: SiteConfig,
  choice: Choice,
  decisions: Decisions,
  source: Source,
  vendors?: TcfVendorChoice,
): TcSent {
  const tcf = ctx.settings as TcfConfig;
  const made: TcfChoice =
    choice === 'accept-all'
      ? acceptAll(ctx.offered, config)
      : vendors && choice !== 'reject-all'
        ? vendorChoiceOf(ctx, vendors, decisions)
        : { ...rejectAll(config), decisions };
  const tcString = encodeChoice(ctx.gvl, ctx.settings, { ...made, consentScreen: SCREENS[source] ?? 0 });
  const addtlConsent = acStringOf(tcf, made.acConsents ?? []);
  return { tcString, ...(addtlConsent && { addtlConsent }) };
}

/**
 * A kept string (this device's, or the account's brought at sign-in) as tcf.js serves it now: re-
 * encoded against the channel's vendors and vendor list of now (a vendor removed, or deleted by
 * IAB, keeps no consent and is no longer disclosed), keeping the dates, language and layer it was
 * made with; the AC string follows the channel's providers of now. Null when the string no longer
 * speaks for the channel (another CMP, another policy version): the visitor is asked again.
 */
export function keptNow(ctx: TcfContext, kept: StoredTc, decisions: Decisions): StoredTc | null {
  const tcf = ctx.settings as TcfConfig;
  const model = stillValid(kept.tc, tcf);
  if (!model) return null;
  const tc = encodeChoice(ctx.gvl, ctx.settings, choiceOf(model, decisions), model);
  const ac = acStringOf(tcf, acConsentsOf(kept.ac), acShownOf(kept.ac));
  return { tc, ...(ac && { ac }) };
}

/** What an app's second layer shows and may offer, and what the kept string holds (to prefill it). */
export function tcfView(ctx: TcfContext, kept: StoredTc | null): TcfView {
  const d = ctx.offered;
  const model = kept ? stillValid(kept.tc, ctx.settings as TcfConfig) : null;
  const current = model ? choiceOf(model, {}) : null;
  return {
    language: ctx.language,
    vendorList: ctx.vendorList,
    offered: {
      purposeConsents: d.consentPurposes,
      purposeLegitimateInterests: d.liPurposes,
      vendorConsents: d.consentVendors,
      vendorLegitimateInterests: d.liVendors,
      specialFeatureOptins: d.specialFeatures,
      acConsents: (ctx.settings as TcfConfig).googleAdditionalConsent?.providerIds ?? [],
    },
    current: current && {
      purposeConsents: current.purposeConsents,
      purposeLegitimateInterests: current.purposeLegitimateInterests,
      vendorConsents: current.vendorConsents,
      vendorLegitimateInterests: current.vendorLegitimateInterests,
      specialFeatureOptins: current.specialFeatureOptins,
      acConsents: acConsentsOf(kept?.ac),
    },
  };
}
