import { type Action, showBanner, type View } from './banner.ts';
import { activateBlocked, watchBlocked } from './blocking.ts';
import { CHOICES } from './choices.ts';
import { setConsentDefaults, updateConsentMode } from './consent-mode.ts';
import { debugRegion, openDebug } from './debug-loader.ts';
import { consentModeState, decide, decidedByGpc, pickLanguage } from './decisions.ts';
import { regionQuery } from './declared-region.ts';
import { type Dialog, dialog } from './dom.ts';
import { fetchConfig } from './fetch-config.ts';
import { loadGpp } from './gpp-loader.ts';
import { handoffArrived, loadHandoff, redeemHandoff } from './handoff-loader.ts';
import { type SignedIn, signInWith } from './identity-loader.ts';
import { loadImport } from './import-loader.ts';
import { sendImpression } from './impression.ts';
import { integrationDefaults, signalIntegrations } from './integrations.ts';
import type { NoticeUi } from './notice/passive.ts';
import { lazyNotice } from './notice-loader.ts';
import { runsHere } from './page-origin.ts';
import { gpcOptOutDue, honorsGpc, initialState, type Policy, policyOf, withGpcOptOut } from './regime.ts';
import { deactivateDenied } from './revoke.ts';
import { createSender } from './sender.ts';
import { forgetNotice, randomId, readConsent, receiptUrl, writeConsent } from './storage.ts';
import { stringsFor } from './strings.ts';
import { loadTcf } from './tcf-loader.ts';
import type {
  ConsentApi,
  ConsentListener,
  Decisions,
  GppHandle,
  ImportedChoice,
  SiteConfig,
  Source,
  StoredConsent,
  TcfHandle,
  TcSent,
} from './types.ts';
import { postToApp } from './webview-bridge.ts';
import { whenBody, whenIdle } from './when.ts';

export interface ConsentOptions {
  /** The service's base URL, e.g. `https://consent.example.com` (the only host the SDK talks to). */
  baseUrl: string;
  siteKey: string;
  /** Test channels only: the region to act as if the visitor were in (`data-region`). */
  region?: string | null;
  /**
   * The site's config for this visitor's region when the page already has it (the snippet's sdk.js
   * carries it): the banner then needs no request to the service. Absent: fetched from `…/config`.
   */
  config?: SiteConfig;
  /**
   * A signed-in visitor's identity token (`data-identity-token`; docs/guides/signed-in-visitors.md):
   * the SDK asks for the account's choice before it shows anything.
   */
  identityToken?: string | null;
}

/** The site's config for this visitor and what follows from it: fixed once the SDK has it. */
export interface Ready {
  config: SiteConfig;
  policy: Policy;
  language: string;
}

/** An instance that has its config: what every step after the start works on. */
export type Live = Instance & Ready;

/**
 * One SDK instance's state: every instance has its own record and its own UI (banner, notice,
 * layers), so nothing of one page's SDK lives in module state.
 */
export interface Instance {
  siteKey: string;
  /** The service's base URL, without a trailing slash. */
  base: string;
  /** `…/v1/public/sites/<siteKey>`. */
  site: string;
  /** The declared region's query (test channels), or ''. */
  region: string;
  gpc: boolean;
  sender: ReturnType<typeof createSender>;
  listeners: ConsentListener[];
  /** What waits for the config (the API called before it came). */
  whenReady: Array<(s: Live) => void>;
  /** The instance itself once the SDK has started (begin); null before. */
  live: Live | null;
  /** The signed-in visitor's token; null: not signed in (or the service refused the token). */
  identityToken: string | null;
  decisions: Decisions | null;
  /**
   * The decision cookie as this page last set it, when the service sets the cookie itself (the
   * first-party path: its answer is still on the way); null: read the cookie.
   */
  kept: StoredConsent | null;
  /** The IAB strings of the decision this page recorded last (an app's WebView hears of them). */
  strings: { tcString?: string; gppString?: string };
  /** A choice read from the site's previous CMP's cookie, waiting to be recorded (import.js). */
  imported: ImportedChoice | null;
  /** The IAB GPP CMP API (gpp.js), for US opt-out visitors of channels with a gppCmpId; else null. */
  gpp: GppHandle | null;
  /** The IAB TCF CMP (tcf.js), for opt-in visitors of TCF channels: it shows its layers, not the banner. */
  tcf: TcfHandle | null;
  /** Whether this page view has counted its banner (or notice) impression; reset() starts over. */
  counted: boolean;
  /** What activates blocked elements added after the first decision; null until then. */
  observer: MutationObserver | null;
  /** The banner's dialog root (banner.ts draws into it). */
  banner: Dialog;
  notice: NoticeUi;
}

/**
 * Whether the service sets the decision cookie on its answers: this SDK came through the channel's
 * first-party path on the page's own origin (docs/guides/keep-the-choice.md). Then the SDK writes
 * no cookie itself (WebKit keeps a cookie the site's server set, and deletes one a script wrote
 * after 7 days without a visit), unless a decision cannot be delivered (sender.ts).
 */
const serverSetsCookie = (s: Live) =>
  !!s.config.firstPartyPath && s.base === location.origin + s.config.firstPartyPath;

/** The visitor's decision as this page knows it: the one it set last, else the cookie. */
const storedOf = (s: Instance): StoredConsent | null => s.kept || readConsent(s.siteKey);

/** Writes the decision cookie from the page, with the channel's cookieDomain. */
const writeKept = (s: Live, value: StoredConsent | null) =>
  writeConsent(s.siteKey, value, s.policy.maxAgeDays, s.config.cookieDomain ?? null);

/** Keeps a decision: through the service's Set-Cookie on the first-party path, else in the page's cookie. */
function keep(s: Live, value: StoredConsent) {
  if (serverSetsCookie(s)) s.kept = value;
  else writeKept(s, value);
}

function impression(s: Live) {
  if (s.counted) return;
  s.counted = true;
  sendImpression(`${s.site}/impressions${s.region}`, {
    configVersion: s.config.configVersion,
    language: s.language,
  });
}

function emit(s: Live) {
  const copy = s.decisions ? { ...s.decisions } : null;
  for (const listener of s.listeners) {
    try {
      listener(copy ? { ...copy } : null);
    } catch (error) {
      console.error(error);
    }
  }
  const detail = { decisions: copy, configVersion: s.config.configVersion };
  document.dispatchEvent(new CustomEvent('consentservice:change', { detail }));
  postToApp({ ...detail, ...s.strings });
}

/** Makes `next` the state of the page: the tags' consent signals first, so tags activated next see them. */
function apply(s: Live, next: Decisions | null) {
  const { config } = s;
  s.decisions = next;
  s.gpp?.update(next, config.purposes, s.gpc);
  const state = consentModeState(config.purposes, next || {});
  // On a TCF channel Google reads its consent from the TC string: Consent Mode says the same.
  if (next) Object.assign(state, s.tcf?.consentMode());
  updateConsentMode(state);
  signalIntegrations(config, state, next);
  deactivateDenied(next || {});
  if (next) {
    activateBlocked(next);
    s.observer ||= watchBlocked(() => s.decisions);
  }
  emit(s);
}

function record(
  s: Live,
  next: Decisions,
  source: Source,
  tc?: TcSent,
  importedFrom?: ImportedChoice['importedFrom'],
) {
  const { config } = s;
  const subjectId = storedOf(s)?.s || randomId(16);
  keep(s, {
    s: subjectId,
    d: next,
    v: config.configVersion,
    // An imported choice is as old as it was there: importing it does not start its lifetime again.
    t: importedFrom ? Date.parse(importedFrom.recordedAt) : Date.now(),
    ...(source === 'gpc' && { g: 1 as const }),
  });
  const gppString = s.gpp?.update(next, config.purposes, s.gpc);
  s.strings = { tcString: tc?.tcString, gppString: gppString || undefined };
  // The notice, the choices link or the preferences say so whenever a decision honours GPC here.
  const gpcHonoredShown = honored(s, next);
  s.sender.enqueue({
    key: randomId(16),
    ...(s.identityToken && { account: 1 as const }),
    body: {
      subjectId,
      decisions: next,
      configVersion: config.configVersion,
      source,
      language: s.language,
      gpc: s.gpc,
      ...(gppString && { gppString }),
      ...tc,
      ...(gpcHonoredShown && { gpcHonoredShown }),
      ...(importedFrom && { importedFrom }),
    },
  });
  apply(s, next);
}

/**
 * The non-blocking UI of opt-out and notice-only (notice.js): the notice until the visitor dismisses
 * it (or decides through the preferences), then, in opt-out, the "Your Privacy Choices" button.
 */
function passive(s: Live) {
  const { config, policy, language, siteKey } = s;
  if (policy.regime === 'opt-in') return;
  s.notice.passive({
    siteKey,
    configVersion: config.configVersion,
    policy,
    stored: storedOf(s),
    strings: stringsFor(language, config.bannerWords),
    language,
    policyUrl: config.privacyPolicy.url,
    optOut: policy.regime === 'opt-out',
    gpcHonored: honored(s, s.decisions),
    onShown: () => impression(s),
  });
}

/** Whether `d` honours the GPC signal in an opt-out region: the page then says "Opt-Out Request Honored". */
const honored = (s: Live, d: Decisions | null) =>
  s.gpc && s.policy.regime === 'opt-out' && honorsGpc(s.config, d);

/**
 * Whether the GPC signal locks its purposes off in the visitor's choices. In opt-out regions the
 * signal is an opt-out the visitor may take back: it does not lock them there, and the service
 * lets the explicit choice win. Elsewhere it does.
 */
const gpcLocks = (s: Live) => s.gpc && s.policy.regime !== 'opt-out';

/** A choice made in the banner or through the page's API: recorded, the banner closed. */
function choose(s: Live, action: Action, source: Source, tc?: TcSent) {
  s.banner.close();
  record(s, decide(s.config.purposes, action, gpcLocks(s)), source, tc);
  passive(s);
}

/**
 * A TCF channel whose tcf.js (or its vendor list) could not be had: a decision there would carry no
 * TC string, which vendors would read as no consent and the next page as no decision (Google's
 * error 2.1a). So nothing is asked or recorded; the CMP API says it is in error (tcf-loader.ts), and
 * the next page view loads tcf.js again.
 */
const tcfDown = (s: Live) => !!s.config.tcf && !s.tcf;

function open(s: Live, view: View, source: Source) {
  const { config, language } = s;
  if (tcfDown(s)) return;
  const locks = gpcLocks(s);
  const onAction = (action: Action, tc?: TcSent) => choose(s, action, source, tc);
  whenBody(() => {
    s.notice.hide();
    s.notice.hideChoicesLink();
    if (s.tcf) s.tcf.show(view, onAction, s.identityToken);
    else
      showBanner(
        s.banner,
        {
          config,
          language,
          strings: stringsFor(language, config.bannerWords),
          gpc: locks,
          gpcHonored: honored(s, s.decisions),
          // Read when the preferences are drawn, not before the banner: they prefill its toggles.
          previous: () => s.decisions || storedOf(s)?.d || null,
          receipt: () => receiptUrl(s.siteKey),
          signedIn: s.identityToken !== null,
          onAction,
        },
        view,
      );
    // The banner a visitor is asked with, not the preferences they opened themselves.
    if (view === 'banner') impression(s);
  });
}

/** Applies the stored decision or the regime's defaults, and shows what the regime asks for. */
function settle(s: Live) {
  const { config, tcf, gpc, imported } = s;
  const stored = storedOf(s);
  const now = Date.now();
  const state = initialState(config, stored, gpc, now);
  s.imported = null;
  if (tcfDown(s)) apply(s, state.ask ? null : state.decisions);
  else if (gpcOptOutDue(config, stored, gpc, now) && state.decisions)
    record(s, withGpcOptOut(config, state.decisions), 'gpc');
  // The previous CMP's choice (import.js): recorded as the visitor's, and not asked again.
  else if (imported)
    record(
      s,
      decide(config.purposes, imported.choice, gpcLocks(s)),
      'import',
      undefined,
      imported.importedFrom,
    );
  // A TCF visitor's decision holds only with its TC string (tcf.js keeps it; then `tcloaded`).
  else if (!state.ask && (!tcf || tcf.restore())) apply(s, state.decisions);
  // GPC makes no TC string: a TCF visitor is asked in the layers.
  else if (!tcf && decidedByGpc(config.purposes, gpc))
    record(s, decide(config.purposes, 'accept-all', gpc), 'gpc');
  else open(s, 'banner', 'banner');
  passive(s);
}

function begin(s: Live) {
  s.live = s;
  settle(s);
  for (const fn of s.whenReady.splice(0)) fn(s);
  // Sibling domains: handoff.js hands the choice over on links to them, loaded once the page is idle.
  // Not for a TCF visitor: a handoff carries no TC string, so the layers would ask there all the same.
  if (s.config.siblingDomains?.length && !s.tcf)
    whenIdle(() =>
      loadHandoff(s.site).then((h) =>
        h?.followLinks({
          site: s.site,
          config: s.config,
          subjectId: () => (storedOf(s)?.d ? (storedOf(s) as StoredConsent).s : null),
        }),
      ),
    );
}

/**
 * First, whether this page may run the SDK at all (page-origin.ts). Then the GPP and TCF CMP APIs
 * before anything is applied or recorded, so that both carry their strings. Visitors with neither
 * (most) start at once, in this task: the banner is drawn in the same task that evaluated the SDK,
 * with no await between.
 */
function start(i: Instance, config: SiteConfig) {
  const { base, site, siteKey, identityToken } = i;
  // A page the service would not record decisions from: nothing shown, applied or loaded, ever.
  if (!runsHere(base, config, location.origin)) return;
  integrationDefaults(config);
  const language = pickLanguage(config, navigator.language);
  const s: Live = Object.assign(i, { config, policy: policyOf(config), language });
  const gppLoad = loadGpp(site, config);
  const tcfLoad = loadTcf({ site, siteKey, config, language });
  // A signed-in visitor: the account's choice first, so a current one never flashes the banner.
  const accountLoad = identityToken ? signInWith(site, identityToken) : null;
  // A visitor who comes with their choice, from a sibling domain (#cs_handoff=) or from the app
  // whose WebView this is (#cs_app=): that choice first.
  const subjectId = storedOf(s)?.s || randomId(16);
  const handoffLoad =
    !config.tcf && handoffArrived(!!config.crossDomain) ? redeemHandoff(site, subjectId) : null;
  // No decision of ours yet, and a cookie of the previous CMP: its choice, unless TCF asks here.
  const importLoad = storedOf(s)?.d || config.tcf ? null : loadImport(site, config);
  if (!gppLoad && !tcfLoad && !accountLoad && !handoffLoad && !importLoad) return begin(s);
  void Promise.all([gppLoad, tcfLoad, accountLoad, handoffLoad, importLoad]).then(
    ([g, t, account, handed, imported]) => {
      s.gpp = g;
      s.tcf = t;
      if (accountLoad) signIn(s, account);
      // The redeem recorded it on this domain (and, through the first-party path, set the cookie).
      if (handed)
        keep(s, { s: subjectId, d: handed.decisions, v: handed.configVersion, t: handed.recordedAt });
      else s.imported = imported;
      begin(s);
    },
  );
}

/**
 * Makes the account's choice this device's (the newest explicit choice wins: the account's, or
 * this device's own when it is newer, which is then recorded for the account). `undefined`: the
 * token was refused, and the visitor is treated as not signed in.
 */
function signIn(s: Live, signed: SignedIn | null) {
  if (!signed || signed.account === undefined) {
    s.identityToken = null;
    return;
  }
  const { account, reconcile } = signed;
  const device = storedOf(s);
  const { stored, upload } = reconcile(device, account);
  if (!stored) return;
  const subjectId = stored.s || randomId(16);
  if (stored !== device) keep(s, { ...stored, s: subjectId });
  // A TCF channel: the account's TC string comes with its choice; this device's (with its AC
  // string) goes with its own.
  const tc = s.tcf?.signIn(account);
  if (upload && stored.d && typeof stored.v === 'number') {
    s.sender.enqueue({
      key: randomId(16),
      account: 1,
      body: {
        subjectId,
        decisions: stored.d,
        configVersion: stored.v,
        source: 'banner',
        language: s.language,
        gpc: s.gpc,
        ...tc,
      },
    });
  }
}

/** Forgets this device's decision, notice and receipt, and asks again (reset, sign-out). */
function startOver(s: Live) {
  s.kept = null;
  writeKept(s, null);
  forgetNotice(s.siteKey);
  receiptUrl(s.siteKey, null);
  s.counted = false;
  if (s.policy.regime !== 'opt-in') return settle(s);
  apply(s, null);
  open(s, 'banner', 'banner');
}

/** Runs `fn` with the started instance: now when the SDK has started, else once it has. */
const later = (i: Instance, fn: (s: Live) => void) => (i.live ? fn(i.live) : i.whenReady.push(fn));

/**
 * The SDKs started on this page, by site key: on window, so the snippet's sdk.js and the npm
 * package, which bundle their own copies of this file, see each other's.
 */
function running(): Record<string, ConsentApi> {
  const w = window as unknown as { __consentServiceSites?: Record<string, ConsentApi> };
  w.__consentServiceSites ||= {};
  return w.__consentServiceSites;
}

/**
 * Starts the consent SDK for one site on this page and returns its API (what the snippet puts on
 * `window.ConsentService`): it applies the stored decision or asks for one, records each decision
 * with the service, and tells listeners. Both the snippet's sdk.js (index.ts) and the npm package
 * start it, so the two cannot drift.
 *
 * One SDK per site per page: a second call for a site already started returns the running SDK's
 * API instead of drawing a second banner into the page (the npm package's React provider, mounted
 * twice, relies on it).
 */
export function createConsent(options: ConsentOptions): ConsentApi {
  const siteKey = options.siteKey;
  const base = options.baseUrl.replace(/\/+$/, '');
  const sites = running();
  if (sites[siteKey]) return sites[siteKey];
  // First, before any tag can run: Consent Mode denied until the visitor decides.
  setConsentDefaults();
  const site = `${base}/v1/public/sites/${encodeURIComponent(siteKey)}`;
  // The developer panel's region for this tab (test channels) wins over `data-region`.
  const override = debugRegion(siteKey);
  const region = regionQuery(siteKey, override || (options.region ?? null));
  const i: Instance = {
    siteKey,
    base,
    site,
    region,
    gpc: (navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl === true,
    sender: createSender(
      `${site}/preferences${region}`,
      siteKey,
      () => i.identityToken,
      // Not delivered yet: the page keeps the decision itself meanwhile, so the next page has it.
      () => i.kept && i.live && writeKept(i.live, i.kept),
    ),
    listeners: [],
    whenReady: [],
    identityToken: options.identityToken || null,
    decisions: null,
    kept: null,
    strings: {},
    imported: null,
    gpp: null,
    tcf: null,
    counted: false,
    observer: null,
    live: null,
    banner: dialog(),
    notice: lazyNotice(site),
  };
  // Decisions a previous page could not deliver: they wait until the page is idle, off the banner's path.
  whenIdle(() => void i.sender.flush());

  /**
   * A decision the page makes through the API (source "api"), as if the visitor had clicked it; on
   * TCF channels through tcf.js, as its buttons do (a TC string, the layers closed, the events sent).
   */
  const decideByApi = (action: 'accept-all' | 'reject-all') =>
    later(i, (s) => {
      const byApi = (made: Action, tc?: TcSent) => choose(s, made, 'api', tc);
      // tcf.js could not be had: no TC string, so the page's own buttons record nothing either.
      if (tcfDown(s)) return;
      return s.tcf ? s.tcf.decide(action, byApi) : byApi(action);
    });
  const preferences = () => later(i, (s) => open(s, 'customize', 'preference_center'));

  // Any "Your Privacy Choices" element opens the preferences: the SDK's own, or the page's footer link.
  document.addEventListener('click', (event) => {
    if (!(event.target as Element).closest?.(CHOICES)) return;
    event.preventDefault();
    preferences();
  });

  // A declared region (test channels) is the service's to resolve: a config made without it does not do.
  if (options.config && !region) start(i, options.config);
  else
    fetchConfig(`${site}/config${region}`).then(
      (config) => start(i, config),
      (error) => console.warn('[consent-service] site config unavailable; nothing optional will run', error),
    );

  const api: ConsentApi = {
    getDecisions: () => (i.decisions ? { ...i.decisions } : null),
    onChange(listener: ConsentListener) {
      i.listeners.push(listener);
      return () => {
        const at = i.listeners.indexOf(listener);
        if (at >= 0) i.listeners.splice(at, 1);
      };
    },
    showPreferences: preferences,
    acceptAll: () => decideByApi('accept-all'),
    rejectAll: () => decideByApi('reject-all'),
    getReceiptUrl: () => receiptUrl(siteKey),
    getSubjectId: () => storedOf(i)?.s ?? null,
    reset: () => later(i, startOver),
    identify: (token: string) =>
      new Promise<boolean>((resolve) =>
        later(i, async (s) => {
          const signed = await signInWith(site, token);
          if (!signed || signed.account === undefined) return resolve(false);
          s.identityToken = token;
          signIn(s, signed);
          s.banner.close(false);
          settle(s);
          resolve(true);
        }),
      ),
    forget: () =>
      later(i, (s) => {
        s.identityToken = null;
        s.banner.close(false);
        startOver(s);
      }),
    // Test channels only: debugRegion said undefined on a live one.
    debug: () => override !== undefined && openDebug(site, i),
  };
  sites[siteKey] = api;
  if (override != null || /[#&]cs_debug/.test(location.hash)) api.debug();
  return api;
}
