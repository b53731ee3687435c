import { type Action, hideBanner, showBanner, type View } from './banner.ts';
import { activateBlocked, watchBlocked } from './blocking.ts';
import { setConsentDefaults, updateConsentMode } from './consent-mode.ts';
import { consentModeState, decide, decidedByGpc, pickLanguage } from './decisions.ts';
import { regionQuery } from './declared-region.ts';
import { fetchConfig } from './fetch-config.ts';
import { loadGpp } from './gpp-loader.ts';
import { type AccountChoice, fetchAccountChoice, reconcile } from './identity.ts';
import { sendImpression } from './impression.ts';
import { integrationDefaults, signalIntegrations } from './integrations.ts';
import { CHOICES, hideChoicesLink, hideNotice, showChoicesLink, showNotice } from './notice.ts';
import { runsHere } from './page-origin.ts';
import {
  gpcOptOutDue,
  honorsGpc,
  initialState,
  type Policy,
  policyOf,
  stillHolds,
  withGpcOptOut,
} from './regime.ts';
import { deactivateDenied } from './revoke.ts';
import { createSender } from './sender.ts';
import { noticeSeen, randomId, readConsent, receiptUrl, writeConsent } from './storage.ts';
import { stringsFor } from './strings.ts';
import { loadTcf } from './tcf-loader.ts';
import type {
  ConsentApi,
  ConsentListener,
  Decisions,
  GppHandle,
  SiteConfig,
  Source,
  TcfHandle,
  TcSent,
} from './types.ts';
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

/**
 * Starts the consent SDK for one site on this page and returns its API (what the snippet puts on
 * `window.ConsentService`): it applies the stored decision or asks for one, records each decision
 * with the service, and tells listeners. Both the snippet's sdk.js (index.ts) and the npm package
 * start it, so the two cannot drift.
 */
export function createConsent(options: ConsentOptions): ConsentApi {
  // First, before any tag can run: Consent Mode denied until the visitor decides.
  setConsentDefaults();
  const siteKey = options.siteKey;
  const base = options.baseUrl.replace(/\/+$/, '');
  const site = `${base}/v1/public/sites/${encodeURIComponent(siteKey)}`;
  const region = regionQuery(siteKey, options.region ?? null);
  /** The signed-in visitor's token; null: not signed in (or the service refused the token). */
  let identityToken = options.identityToken || null;
  const sender = createSender(`${site}/preferences${region}`, siteKey, () => identityToken);
  // Decisions a previous page could not deliver: they wait until the page is idle, off the banner's path.
  whenIdle(() => void sender.flush());
  const gpc = (navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl === true;
  const listeners: ConsentListener[] = [];
  let config: SiteConfig | null = null;
  let policy: Policy;
  let language = '';
  let decisions: Decisions | null = null;
  /** The IAB GPP CMP API (gpp.js), for US opt-out visitors of channels with a gppCmpId; else null. */
  let gpp: GppHandle | null = null;
  /** The IAB TCF CMP (tcf.js), for opt-in visitors of TCF channels: it shows its layers, not the banner. */
  let tcf: TcfHandle | null = null;
  const whenReady: Array<() => void> = [];
  /** Whether this page view has counted its banner (or notice) impression; reset() starts over. */
  let counted = false;

  function impression() {
    if (counted) return;
    counted = true;
    sendImpression(`${site}/impressions${region}`, { configVersion: config!.configVersion, language });
  }

  function emit() {
    const copy = decisions ? { ...decisions } : null;
    for (const listener of listeners) {
      try {
        listener(copy ? { ...copy } : null);
      } catch (error) {
        console.error(error);
      }
    }
    const detail = { decisions: copy, configVersion: config?.configVersion ?? null };
    document.dispatchEvent(new CustomEvent('consentservice:change', { detail }));
  }

  /** Makes `next` the state of the page: the tags' consent signals first, so tags activated next see them. */
  function apply(next: Decisions | null) {
    decisions = next;
    gpp?.update(next, config!.purposes, gpc);
    const state = consentModeState(config!.purposes, next || {});
    updateConsentMode(state);
    signalIntegrations(config!, state, next);
    deactivateDenied(next || {});
    if (next) {
      activateBlocked(next);
      watchBlocked(() => decisions);
    }
    emit();
  }

  function record(next: Decisions, source: Source, tc?: TcSent) {
    const cfg = config!;
    const subjectId = readConsent(siteKey)?.s || randomId(16);
    writeConsent(
      siteKey,
      {
        s: subjectId,
        d: next,
        v: cfg.configVersion,
        t: Date.now(),
        ...(source === 'gpc' && { g: 1 as const }),
      },
      policy.maxAgeDays,
    );
    const gppString = gpp?.update(next, cfg.purposes, gpc);
    // The notice, the choices link or the preferences say so whenever a decision honours GPC here.
    const gpcHonoredShown = honored(next);
    sender.enqueue({
      key: randomId(16),
      ...(identityToken && { account: 1 as const }),
      body: {
        subjectId,
        decisions: next,
        configVersion: cfg.configVersion,
        source,
        language,
        gpc,
        ...(gppString && { gppString }),
        ...tc,
        ...(gpcHonoredShown && { gpcHonoredShown }),
      },
    });
    apply(next);
  }

  /**
   * The non-blocking UI of opt-out and notice-only: the notice until the visitor dismisses it (or
   * decides through the preferences), then, in opt-out, the "Your Privacy Choices" button.
   */
  function passive() {
    const cfg = config!;
    if (policy.regime === 'opt-in') return;
    const seen = noticeSeen(siteKey);
    const stored = readConsent(siteKey);
    // A decision of the visitor's own means they saw the notice; the SDK's GPC record does not.
    const noticed = (stored?.d && !stored.g) || stillHolds(seen?.v, seen?.t, policy, Date.now());
    const strings = stringsFor(language);
    const optOut = policy.regime === 'opt-out';
    whenBody(() => {
      if (!noticed) {
        const onDismiss = () => {
          noticeSeen(siteKey, { v: cfg.configVersion, t: Date.now() });
          passive();
        };
        const gpcHonored = honored(decisions);
        showNotice({ strings, language, policyUrl: cfg.privacyPolicy.url, optOut, gpcHonored, onDismiss });
        impression();
      } else if (optOut)
        showChoicesLink(strings.choices, language, honored(decisions) ? strings.gpcHonored : '');
    });
  }

  /** Whether `d` honours the GPC signal in an opt-out region: the page then says "Opt-Out Request Honored". */
  const honored = (d: Decisions | null) => gpc && policy.regime === 'opt-out' && honorsGpc(config!, d);

  /**
   * Whether the GPC signal locks its purposes off in the visitor's choices. In opt-out regions the
   * signal is an opt-out the visitor may take back: it does not lock them there, and the service
   * lets the explicit choice win. Elsewhere it does.
   */
  const gpcLocks = () => gpc && policy.regime !== 'opt-out';

  /** A choice made in the banner or through the page's API: recorded, the banner closed. */
  function choose(action: Action, source: Source, tc?: TcSent) {
    hideBanner();
    record(decide(config!.purposes, action, gpcLocks()), source, tc);
    passive();
  }

  function open(view: View, source: Source) {
    const cfg = config!;
    const locks = gpcLocks();
    const onAction = (action: Action, tc?: TcSent) => choose(action, source, tc);
    whenBody(() => {
      hideNotice();
      hideChoicesLink();
      if (tcf) tcf.show(view, onAction, identityToken);
      else
        showBanner(
          {
            config: cfg,
            language,
            strings: stringsFor(language),
            gpc: locks,
            gpcHonored: honored(decisions),
            // Read when the preferences are drawn, not before the banner: they prefill its toggles.
            previous: () => decisions || readConsent(siteKey)?.d || null,
            receipt: () => receiptUrl(siteKey),
            signedIn: identityToken !== null,
            onAction,
          },
          view,
        );
      // The banner a visitor is asked with, not the preferences they opened themselves.
      if (view === 'banner') impression();
    });
  }

  /** Applies the stored decision or the regime's defaults, and shows what the regime asks for. */
  function settle() {
    const cfg = config!;
    const stored = readConsent(siteKey);
    const now = Date.now();
    const state = initialState(cfg, stored, gpc, now);
    if (gpcOptOutDue(cfg, stored, gpc, now)) record(withGpcOptOut(cfg, state.decisions!), 'gpc');
    // A TCF visitor's decision holds only with its TC string (tcf.js keeps it; then `tcloaded`).
    else if (!state.ask && (!tcf || tcf.restore())) apply(state.decisions);
    // GPC makes no TC string: a TCF visitor is asked in the layers.
    else if (!tcf && decidedByGpc(cfg.purposes, gpc)) record(decide(cfg.purposes, 'accept-all', gpc), 'gpc');
    else open('banner', 'banner');
    passive();
  }

  function begin(cfg: SiteConfig) {
    config = cfg;
    policy = policyOf(cfg);
    settle();
    for (const fn of whenReady.splice(0)) fn();
  }

  /**
   * First, whether this page may run the SDK at all (page-origin.ts). Then the GPP and TCF CMP APIs
   * before anything is applied or recorded, so that both carry their strings. Visitors with neither
   * (most) start at once, in this task: the banner is drawn in the same task that evaluated the SDK,
   * with no await between.
   */
  function start(cfg: SiteConfig) {
    // A page the service would not record decisions from: nothing shown, applied or loaded, ever.
    if (!runsHere(base, cfg, location.origin)) return;
    integrationDefaults(cfg);
    language = pickLanguage(cfg, navigator.language);
    const gppLoad = loadGpp(base, siteKey, cfg);
    const tcfLoad = loadTcf({ site, siteKey, config: cfg, language });
    // A signed-in visitor: the account's choice first, so a current one never flashes the banner.
    const accountLoad = identityToken ? fetchAccountChoice(site, identityToken) : null;
    if (!gppLoad && !tcfLoad && !accountLoad) return begin(cfg);
    void Promise.all([gppLoad, tcfLoad, accountLoad]).then(([g, t, account]) => {
      gpp = g;
      tcf = t;
      if (accountLoad) signIn(cfg, account);
      begin(cfg);
    });
  }

  /**
   * Makes the account's choice this device's (the newest explicit choice wins: the account's, or
   * this device's own when it is newer, which is then recorded for the account). `undefined`: the
   * token was refused, and the visitor is treated as not signed in.
   */
  function signIn(cfg: SiteConfig, account: AccountChoice | null | undefined) {
    if (account === undefined) {
      identityToken = null;
      return;
    }
    const device = readConsent(siteKey);
    const { stored, upload } = reconcile(device, account);
    if (!stored) return;
    const subjectId = stored.s || randomId(16);
    if (stored !== device) writeConsent(siteKey, { ...stored, s: subjectId }, policyOf(cfg).maxAgeDays);
    // A TCF channel: the account's TC string comes with its choice; this device's goes with its own.
    const tcString = tcf?.signIn(account);
    if (upload && stored.d && typeof stored.v === 'number') {
      sender.enqueue({
        key: randomId(16),
        account: 1,
        body: {
          subjectId,
          decisions: stored.d,
          configVersion: stored.v,
          source: 'banner',
          language,
          gpc,
          tcString,
        },
      });
    }
  }

  /** Forgets this device's decision, notice and receipt, and asks again (reset, sign-out). */
  function startOver() {
    writeConsent(siteKey, null);
    noticeSeen(siteKey, null);
    receiptUrl(siteKey, null);
    counted = false;
    if (policy.regime !== 'opt-in') return settle();
    apply(null);
    open('banner', 'banner');
  }

  const later = (fn: () => void) => (config ? fn() : whenReady.push(fn));
  /**
   * A decision the page makes through the API (source "api"), as if the visitor had clicked it; on
   * TCF channels through tcf.js, as its buttons do (a TC string, the layers closed, the events sent).
   */
  const byApi = (action: Action, tc?: TcSent) => choose(action, 'api', tc);
  const decideByApi = (action: 'accept-all' | 'reject-all') =>
    later(() => (tcf ? tcf.decide(action, byApi) : byApi(action)));

  // Any "Your Privacy Choices" element opens the preferences: the SDK's own, or the page's footer link.
  document.addEventListener('click', (event) => {
    if (!(event.target as Element).closest?.(CHOICES)) return;
    event.preventDefault();
    later(() => open('customize', 'preference_center'));
  });

  // A declared region (test channels) is the service's to resolve: a config made without it does not do.
  if (options.config && !region) start(options.config);
  else
    fetchConfig(`${site}/config${region}`).then(start, (error) =>
      console.warn('[consent-service] site config unavailable; nothing optional will run', error),
    );

  return {
    getDecisions: () => (decisions ? { ...decisions } : null),
    onChange(listener: ConsentListener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    showPreferences: () => later(() => open('customize', 'preference_center')),
    acceptAll: () => decideByApi('accept-all'),
    rejectAll: () => decideByApi('reject-all'),
    getReceiptUrl: () => receiptUrl(siteKey),
    getSubjectId: () => readConsent(siteKey)?.s ?? null,
    reset: () => later(startOver),
    identify: (token: string) =>
      new Promise<boolean>((resolve) =>
        later(async () => {
          const account = await fetchAccountChoice(site, token);
          if (account === undefined) return resolve(false);
          identityToken = token;
          signIn(config!, account);
          hideBanner(false);
          settle();
          resolve(true);
        }),
      ),
    forget: () =>
      later(() => {
        identityToken = null;
        hideBanner(false);
        startOver();
      }),
  };
}
