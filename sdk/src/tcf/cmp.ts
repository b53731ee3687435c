import { CmpApi, CmpApiModel } from '@iabtechlabtcf/cmpapi';
import { GVL, TCString } from '@iabtechlabtcf/core';
import installStub from '@iabtechlabtcf/stub';
import { BANNER_WORDS } from '../../../src/shared/banner-words.ts';
import { readConsent } from '../storage.ts';
import { type SdkWords, stringsFor } from '../strings.ts';
import { CMP_API_VERSION } from '../tcf-answers.ts';
import type { TcfStart } from '../tcf-loader.ts';
import type { Decisions, TcfConfig, TcfDone, TcfHandle } from '../types.ts';
import { whenBody } from '../when.ts';
import { acConsentsOf, acShownOf, acStringOf } from './ac-string.ts';
import { googleConsentMode } from './consent-mode.ts';
import { gppForTcf } from './gpp-bridge.ts';
import { disclosureOf } from './layers/disclosure.ts';
import { acceptAll, createTcfLayers, rejectAll, type TcfAction, type TcfChoice } from './layers/index.ts';
import { restrictedList } from './layers/restrictions.ts';
import { layerLanguage, primaryOf, tcfStringsFor } from './layers/strings.ts';
import { createReopenControl } from './reopen-control.ts';
import { choiceOf, type EncodeSettings, encodeChoice, encodeTransparency, stillValid } from './tc-model.ts';
import { readTcString, writeTcString } from './tc-store.ts';
import { answerVendorList } from './vendor-list-command.ts';

/** The slice as the layers use it: the list, the one language it and the layers are in, its standard texts. */
interface ShownList {
  gvl: GVL;
  /** The language both layers are drawn in, and the TC string's consentLanguage. */
  language: string;
  standardTexts?: unknown;
}

/**
 * The channel's slice of the vendor list, from the service (browsers never fetch IAB's host), in
 * one language for the whole of both layers (strings.ts, layerLanguage): the visitor's when the
 * layers have their sentences in it and the service holds IAB's translation (the slice's
 * Content-Language says which it served); else English, asked for again when the service served a
 * language the layers lack. Its path and query are taken from the config and asked of the host
 * sdk.js came from, as every other request of the SDK is: the service's BASE_URL may name another
 * address for the same service (a proxy), and the SDK talks to one host only. `getVendorList` of
 * the CMP API asks GVL for a version by address (its baseUrl plus a file name); pointing both names
 * at this slice keeps those requests on the service too, and the list fetched here is in GVL's
 * cache already, so the usual call costs no request at all.
 */
async function fetchVendorList(ctx: TcfStart, tcf: TcfConfig, asked = ctx.language): Promise<ShownList> {
  const given = new URL(tcf.vendorListUrl, `${ctx.site}/`);
  const url = new URL(given.pathname + given.search, ctx.site);
  url.searchParams.set('lang', asked);
  const res = await fetch(url.href, { credentials: 'omit' });
  if (!res.ok) throw new Error(`vendor list: HTTP ${res.status}`);
  const served = res.headers.get('content-language');
  const language = layerLanguage(asked, served);
  // Declarations in a language the layers have no sentences in: English for both, never mixed.
  if (language === 'en' && served && primaryOf(served) !== 'en') return fetchVendorList(ctx, tcf, 'en');
  const json = await res.json();
  const file = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  GVL.baseUrl = url.href.slice(0, url.href.length - file.length - url.search.length);
  GVL.latestFilename = `${file}${url.search}`;
  GVL.versionedFilename = `${file}${url.search.replace(/([?&]version=)\d+/, '$1[VERSION]')}`;
  // GVL sets the string's consentLanguage from its language: the one the layers are drawn in.
  const gvl = language === 'en' ? new GVL(json) : new GVL(json, { language });
  return { gvl, language, standardTexts: json.standardTexts };
}

/** The banner's words the layers use, in the layers' language (tcf.js carries those sdk.js lacks). */
const layerUiStrings = (language: string): SdkWords => ({
  ...stringsFor(language, BANNER_WORDS),
  ...tcfStringsFor(language).ui,
});

/** The channel's own purposes as the SDK's choice: what the layers' toggles say, required ones on. */
const own = (decisions: Decisions) =>
  Object.fromEntries(Object.entries(decisions).map(([key, value]) => [key, value === 'granted']));

/**
 * Starts the IAB TCF CMP API on this page: `CmpApi` (IAB Tech Lab's own implementation) replaces
 * the stub's `__tcfapi` and answers what vendors queued there once the first state is known (a
 * kept string, or the layers showing). `ping` and every event's fields come from the library.
 */
export async function startTcf(ctx: TcfStart): Promise<TcfHandle> {
  // The channel's own purposes go into the Publisher TC segment, in the channel's order.
  const tcf: EncodeSettings = {
    ...(ctx.config.tcf as TcfConfig),
    purposeKeys: ctx.config.purposes.map((p) => p.key),
  };
  const { configVersion } = ctx.config;
  const [shown, gpp] = await Promise.all([fetchVendorList(ctx, tcf), gppForTcf(ctx)]);
  const { gvl } = shown;
  // CmpApi answers calls on this page only; the stub adds the `__tcfapiLocator` frame and answers
  // frames' postMessage calls. A snippet pasted before the channel had tcf lacks it: install it now.
  if (typeof (window as { __tcfapi?: unknown }).__tcfapi !== 'function') installStub();
  // The library's "2" would contradict the stub's ping and the SDK's: one version of the API.
  (CmpApiModel as { apiVersion: string }).apiVersion = CMP_API_VERSION;
  /** The visitor's Google Additional Consent string (channels with ATP providers); undefined: none. */
  let ac: string | undefined;
  // TCData carries `addtlConsent` (Google's Additional Consent specification) when there is one,
  // and `enableAdvertiserConsentMode`: Google's tags infer their Consent Mode from the TC string
  // (consent-mode.ts says the same to them). The library runs this for addEventListener too.
  const cmp = new CmpApi(tcf.cmpId, tcf.cmpVersion, true, {
    getTCData: (next: (data: unknown, ok: boolean) => void, data: unknown, ok: boolean) => {
      if (data && typeof data === 'object') {
        const tcData = data as { addtlConsent?: string; enableAdvertiserConsentMode?: boolean };
        if (ac !== undefined) tcData.addtlConsent = ac;
        tcData.enableAdvertiserConsentMode = true;
      }
      next(data, ok);
    },
  });
  answerVendorList(gvl);
  // This start's own UI: the layers and the reopen control.
  const layers = createTcfLayers();
  const reopen = createReopenControl();
  /** The visitor's current TC string; null before any. */
  let current: string | null = null;
  /** Makes `tcString` the visitor's in both CMP APIs: `__tcfapi` (its event follows) and `__gpp`. */
  const publish = (tcString: string) => {
    current = tcString;
    cmp.update(tcString, false);
    gpp?.updateTc(tcString);
  };

  /** The control that reopens the preferences, after a decision (unless the channel set "none"). */
  const reopenable = () => {
    if (tcf.reopenControl !== 'none')
      whenBody(() => reopen.show(stringsFor(ctx.language, BANNER_WORDS).choices, ctx.language));
  };

  /**
   * The kept string of this device's decision, re-encoded against the channel's vendors and the
   * vendor list of now (a vendor the publisher removed, or IAB deleted, keeps no consent and is no
   * longer disclosed: less is done with the visitor's data, not more); null when there is none for
   * the decision the SDK holds.
   */
  const keptNow = (): string | null => {
    const kept = readTcString(ctx.siteKey);
    const decided = readConsent(ctx.siteKey);
    const model = kept && kept.v === decided?.v ? stillValid(kept.tc, tcf) : null;
    if (!kept || !model) return null;
    const tcString = encodeChoice(gvl, tcf, choiceOf(model, decided?.d ?? {}), model);
    // The AC string follows the channel's providers of now, as the TC string its vendors: a
    // provider removed drops out, one added since was never shown to this visitor, so is not named.
    ac = acStringOf(tcf, acConsentsOf(kept.ac), acShownOf(kept.ac));
    if (tcString !== kept.tc || ac !== kept.ac) writeTcString(ctx.siteKey, { tc: tcString, v: kept.v, ac });
    return tcString;
  };

  /**
   * Every decision ends here, whoever made it (the layers' buttons, or the page's acceptAll() and
   * rejectAll()): the layers close, the string is kept and published (`useractioncomplete`), the
   * reopen control appears, and the SDK records the choice with its string.
   */
  const conclude = (choice: TcfChoice, action: TcfAction, done: TcfDone) => {
    layers.hide();
    const tcString = encodeChoice(gvl, tcf, choice);
    ac = acStringOf(tcf, choice.acConsents ?? []);
    writeTcString(ctx.siteKey, { tc: tcString, v: configVersion, ac });
    publish(tcString);
    reopenable();
    done(action === 'save' ? own(choice.decisions) : action, { tcString, ...(ac && { addtlConsent: ac }) });
  };

  return {
    consentMode: () => (current ? googleConsentMode(current) : null),

    restore() {
      // The SDK judged its kept decision still good (age, material changes); the string must be the
      // one made with that decision.
      const tcString = keptNow();
      if (!tcString) return false;
      // Layers left open by an earlier state (a sign-in that brought the account's choice) close.
      layers.hide(false);
      // The first update with a string is `tcloaded`; the same string again tells no one anything.
      if (tcString !== current) publish(tcString);
      reopenable();
      return true;
    },

    decide(action, done) {
      const shown = { purposeOneTreatment: tcf.purposeOneTreatment };
      // consentScreen 0: made by the page, on no layer of ours.
      const choice =
        action === 'accept-all'
          ? acceptAll(disclosureOf(restrictedList(gvl, tcf), shown), ctx.config)
          : rejectAll(ctx.config);
      conclude({ ...choice, consentScreen: 0 }, action, done);
    },

    signIn(account) {
      // The account's choice became this device's (sdk.js copied it into the consent cookie): its TC
      // and AC strings come with it, so the CMP API serves the account's strings and nothing is asked.
      const decided = readConsent(ctx.siteKey);
      if (
        account?.tcString &&
        decided?.t === Date.parse(account.recordedAt) &&
        decided.v === account.configVersion
      )
        writeTcString(ctx.siteKey, {
          tc: account.tcString,
          v: account.configVersion,
          ...(account.addtlConsent && { ac: account.addtlConsent }),
        });
      // This device's strings, for an own choice newer than the account's, recorded for the account.
      const tcString = keptNow();
      return tcString ? { tcString, ...(ac && { addtlConsent: ac }) } : undefined;
    },

    show(view, done, signedIn) {
      const previous = readConsent(ctx.siteKey)?.d;
      // No kept decision (reset() forgot it): the visitor's string is forgotten with it.
      if (!previous) current = null;
      // Shown, nothing chosen yet: every provider disclosed, none consented.
      if (!current) ac = acStringOf(tcf, []);
      const decoded = current ? TCString.decode(current) : null;
      // `cmpuishown`: the visitor's string when there is one, else what showing the layers gives.
      cmp.update(current ?? encodeTransparency(gvl, tcf), true);
      // Before the layers take focus, so a keyboard visitor who opened them from it gets it back after.
      reopen.hide();
      layers.show({
        // What the layers offer follows the channel's publisher restrictions.
        gvl: restrictedList(gvl, tcf),
        config: ctx.config,
        language: shown.language,
        strings: layerUiStrings(shown.language),
        standardTexts: shown.standardTexts,
        previous:
          decoded && previous ? { ...choiceOf(decoded, previous), acConsents: acConsentsOf(ac) } : null,
        view,
        signedIn: !!signedIn,
        onChoice: (choice, action) => conclude(choice, action, done),
      });
    },
  };
}
