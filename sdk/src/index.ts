import { type Action, hideBanner, showBanner, type View } from './banner.ts';
import { activateBlocked, watchBlocked } from './blocking.ts';
import { setConsentDefaults, updateConsentMode } from './consent-mode.ts';
import { consentModeState, decide, decidedByGpc, pickLanguage } from './decisions.ts';
import { regionQuery } from './declared-region.ts';
import { loadGpp } from './gpp-loader.ts';
import { locateSelf } from './locate.ts';
import { CHOICES, hideChoicesLink, hideNotice, showChoicesLink, showNotice } from './notice.ts';
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
import type { Decisions, GppHandle, SiteConfig, Source, TcfHandle } from './types.ts';

type Listener = (decisions: Decisions | null) => void;

function whenBody(fn: () => void) {
  if (document.body) fn();
  else document.addEventListener('DOMContentLoaded', fn, { once: true });
}

async function fetchConfig(url: string): Promise<SiteConfig> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, { credentials: 'omit' });
      if (res.ok) return (await res.json()).data;
      if (res.status < 500 && res.status !== 429) throw new Error(`HTTP ${res.status}`);
    } catch (error) {
      if (attempt >= 3 || (error instanceof Error && error.message.startsWith('HTTP'))) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
  }
}

function boot() {
  const w = window as unknown as { ConsentService?: unknown };
  if (w.ConsentService) return; // the snippet pasted twice: one SDK is enough
  // First, before any tag can run: Consent Mode denied until the visitor decides.
  setConsentDefaults();
  const self = locateSelf();
  if (!self) {
    console.warn('[consent-service] cannot find the sdk.js script element; nothing will be activated');
    return;
  }
  const site = `${self.base}/v1/public/sites/${encodeURIComponent(self.siteKey)}`;
  const region = regionQuery(self.siteKey, self.region);
  const sender = createSender(`${site}/preferences${region}`, self.siteKey);
  void sender.flush(); // decisions a previous page could not deliver
  const gpc = (navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl === true;
  const listeners: Listener[] = [];
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

  /**
   * One impression per banner shown, counted in aggregates only, so the body says which
   * config and language were shown and nothing else; no credentials, no Referer. fetch with keepalive
   * rather than navigator.sendBeacon: a beacon cannot send application/json cross-origin (that needs a
   * CORS preflight, which sendBeacon does not do; Chromium refuses such a Blob), and keepalive lets the
   * request finish if the visitor leaves at once. Fire and forget: a lost impression costs one count.
   */
  function impression() {
    if (counted) return;
    counted = true;
    fetch(`${site}/impressions${region}`, {
      method: 'POST',
      keepalive: true,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ configVersion: config!.configVersion, language }),
    }).catch(() => {});
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

  /** Makes `next` the state of the page: Consent Mode first, so tags activated next see it. */
  function apply(next: Decisions | null) {
    decisions = next;
    gpp?.update(next, config!.purposes, gpc);
    updateConsentMode(consentModeState(config!.purposes, next || {}));
    deactivateDenied(next || {});
    if (next) {
      activateBlocked(next);
      watchBlocked(() => decisions);
    }
    emit();
  }

  function record(next: Decisions, source: Source, tcString?: string) {
    const cfg = config!;
    const subjectId = readConsent(self!.siteKey)?.s || randomId(16);
    writeConsent(
      self!.siteKey,
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
    sender.enqueue({
      key: randomId(16),
      body: {
        subjectId,
        decisions: next,
        configVersion: cfg.configVersion,
        source,
        language,
        gpc,
        ...(gppString && { gppString }),
        ...(tcString && { tcString }),
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
    const seen = noticeSeen(self!.siteKey);
    const stored = readConsent(self!.siteKey);
    // A decision of the visitor's own means they saw the notice; the SDK's GPC record does not.
    const noticed = (stored?.d && !stored.g) || stillHolds(seen?.v, seen?.t, policy, Date.now());
    const strings = stringsFor(language);
    const optOut = policy.regime === 'opt-out';
    whenBody(() => {
      if (!noticed) {
        const onDismiss = () => {
          noticeSeen(self!.siteKey, { v: cfg.configVersion, t: Date.now() });
          passive();
        };
        const gpcHonored = optOut && gpc && honorsGpc(cfg, decisions);
        showNotice({ strings, language, policyUrl: cfg.privacyPolicy.url, optOut, gpcHonored, onDismiss });
        impression();
      } else if (optOut) showChoicesLink(strings.choices, language);
    });
  }

  function open(view: View, source: Source) {
    const cfg = config!;
    // In opt-out regions the signal is an opt-out the visitor may take back: it does
    // not lock the toggles there, and the service lets the explicit choice win. Elsewhere it does.
    const optOut = policy.regime === 'opt-out';
    const locks = gpc && !optOut;
    const previous = decisions || readConsent(self!.siteKey)?.d || null;
    const onAction = (action: Action, tcString?: string) => {
      hideBanner();
      record(decide(cfg.purposes, action, locks), source, tcString);
      passive();
    };
    whenBody(() => {
      hideNotice();
      hideChoicesLink();
      if (tcf) tcf.show(view, onAction);
      else
        showBanner(
          {
            config: cfg,
            language,
            strings: stringsFor(language),
            gpc: locks,
            gpcHonored: gpc && optOut && honorsGpc(cfg, decisions),
            previous,
            receipt: receiptUrl(self!.siteKey),
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
    const stored = readConsent(self!.siteKey);
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

  async function start(cfg: SiteConfig) {
    // The GPP and TCF CMP APIs before anything is applied or recorded, so that both carry their
    // strings; for visitors without GPP (US opt-out) or TCF (opt-in, TCF channel) they resolve null at once.
    const lang = pickLanguage(cfg, navigator.language);
    [gpp, tcf] = await Promise.all([
      loadGpp(self!.base, self!.siteKey, cfg),
      loadTcf({ site, siteKey: self!.siteKey, config: cfg, language: lang }),
    ]);
    config = cfg;
    policy = policyOf(cfg);
    language = lang;
    settle();
    for (const fn of whenReady.splice(0)) fn();
  }

  const later = (fn: () => void) => (config ? fn() : whenReady.push(fn));

  w.ConsentService = {
    getDecisions: () => (decisions ? { ...decisions } : null),
    onChange(listener: Listener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    showPreferences: () => later(() => open('customize', 'preference_center')),
    /** The receipt of the visitor's last delivered decision; null when none yet. */
    getReceiptUrl: () => receiptUrl(self.siteKey),
    /** The id the service knows this visitor by (the subjectId of their decisions); null before the first. */
    getSubjectId: () => readConsent(self.siteKey)?.s ?? null,
    /** Forgets this visitor's decision and id here (recorded evidence stays) and asks again. */
    reset: () =>
      later(() => {
        writeConsent(self.siteKey, null);
        noticeSeen(self.siteKey, null);
        receiptUrl(self.siteKey, null);
        counted = false;
        if (policy.regime !== 'opt-in') return settle();
        apply(null);
        open('banner', 'banner');
      }),
  };

  // Any "Your Privacy Choices" element opens the preferences: the SDK's own, or the page's footer link.
  document.addEventListener('click', (event) => {
    if (!(event.target as Element).closest?.(CHOICES)) return;
    event.preventDefault();
    later(() => open('customize', 'preference_center'));
  });

  fetchConfig(`${site}/config${region}`).then(start, (error) =>
    console.warn('[consent-service] site config unavailable; nothing optional will run', error),
  );
}

boot();
