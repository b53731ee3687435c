import { type Action, hideBanner, showBanner, type View } from './banner.ts';
import { activateBlocked, watchBlocked } from './blocking.ts';
import { setConsentDefaults, updateConsentMode } from './consent-mode.ts';
import { consentModeState, decide, decidedByGpc, pickLanguage, validDecisions } from './decisions.ts';
import { locateSelf } from './locate.ts';
import { createSender } from './sender.ts';
import { randomId, readConsent, writeConsent } from './storage.ts';
import { stringsFor } from './strings.ts';
import type { Decisions, SiteConfig, Source } from './types.ts';

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
  const sender = createSender(`${site}/preferences`, self.siteKey);
  void sender.flush(); // decisions a previous page could not deliver
  const gpc = (navigator as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl === true;
  const listeners: Listener[] = [];
  let config: SiteConfig | null = null;
  let language = '';
  let decisions: Decisions | null = null;
  const whenReady: Array<() => void> = [];

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
    updateConsentMode(consentModeState(config!.purposes, next || {}));
    if (next) {
      activateBlocked(next);
      watchBlocked(() => decisions);
    }
    emit();
  }

  function record(next: Decisions, source: Source) {
    const cfg = config!;
    const subjectId = readConsent(self!.siteKey)?.s || randomId(16);
    writeConsent(self!.siteKey, { s: subjectId, d: next, v: cfg.configVersion, t: Date.now() });
    sender.enqueue({
      key: randomId(16),
      body: { subjectId, decisions: next, configVersion: cfg.configVersion, source, language, gpc },
    });
    apply(next);
  }

  function open(view: View, source: Source) {
    const cfg = config!;
    whenBody(() =>
      showBanner(
        {
          config: cfg,
          language,
          strings: stringsFor(language),
          gpc,
          previous: decisions || readConsent(self!.siteKey)?.d || null,
          onAction(action: Action) {
            hideBanner();
            record(decide(cfg.purposes, action, gpc), source);
          },
        },
        view,
      ),
    );
  }

  function start(cfg: SiteConfig) {
    config = cfg;
    language = pickLanguage(cfg, navigator.language);
    const valid = validDecisions(readConsent(self!.siteKey), cfg.configVersion, Date.now());
    if (valid) apply(valid);
    else if (decidedByGpc(cfg.purposes, gpc)) record(decide(cfg.purposes, 'accept-all', gpc), 'gpc');
    else open('banner', 'banner');
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
    /** Forgets this visitor's decision and id here (recorded evidence stays) and asks again. */
    reset: () =>
      later(() => {
        writeConsent(self.siteKey, null);
        apply(null);
        open('banner', 'banner');
      }),
  };

  fetchConfig(`${site}/config`).then(start, (error) =>
    console.warn('[consent-service] site config unavailable; nothing optional will run', error),
  );
}

boot();
