import { pickLanguage } from '../../../sdk/src/decisions.ts';
import type { SiteConfig } from '../../../sdk/src/types.ts';
import { gppSectionOf } from './gpp.ts';
import { createSession } from './session.ts';
import { accountChoice, signIn } from './sign-in.ts';
import { readConsent, readTc, writeConsent, writeTc } from './stored-state.ts';
import { loadTcf, tcfView } from './tcf.ts';
import type { ConsentClient, ConsentClientOptions, DecideOptions, DecisionsInput } from './types.ts';

/**
 * A headless consent client: the app draws its own banner (or @consent-service/react-native's) and
 * asks this client what to do. What a choice means (required purposes granted, the regime's
 * defaults, when a decision stops holding, which choice wins at sign-in, the TC and GPP strings it
 * makes) is the web SDK's own code in sdk/src, imported, so a choice means the same in an app as on
 * the web. Apps send no GPC signal.
 */
export function createConsentClient(options: ConsentClientOptions): ConsentClient {
  const { storage, siteKey } = options;
  const session = createSession(options);
  const { s, transport, queue, record } = session;

  async function fetchConfig(): Promise<SiteConfig> {
    const res = await transport.send('config', 'GET');
    if (!res.ok) throw new Error(`[consent-service] config unavailable: HTTP ${res.status}`);
    return (await res.json()).data as SiteConfig;
  }

  return {
    async load() {
      const [config, kept, keptTc] = await Promise.all([
        fetchConfig(),
        readConsent(storage, siteKey),
        readTc(storage, siteKey),
      ]);
      const language = pickLanguage(config, options.language);
      const tcf = await loadTcf(transport, config, language);
      s.loaded = { config, language, tcf, gpp: gppSectionOf(config) };
      s.stored = kept;
      s.storedTc = keptTc;
      await session.settle();
      // Decisions an earlier run could not deliver.
      void queue.flush();
    },
    shouldAsk: () => s.ask,
    config: () => s.loaded?.config ?? null,
    tcf: () => (s.loaded?.tcf ? tcfView(s.loaded.tcf, s.decisions ? s.storedTc : null) : null),
    decide(input: DecisionsInput, opts?: DecideOptions) {
      const choice: Record<string, boolean> = {};
      for (const [key, value] of Object.entries(input)) choice[key] = value === true || value === 'granted';
      return record(choice, opts?.source ?? 'banner', opts?.tcf);
    },
    acceptAll: (opts) => record('accept-all', opts?.source ?? 'banner'),
    rejectAll: (opts) => record('reject-all', opts?.source ?? 'banner'),
    getDecisions: () => (s.decisions ? { ...s.decisions } : null),
    onChange(listener) {
      s.listeners.push(listener);
      return () => {
        const at = s.listeners.indexOf(listener);
        if (at >= 0) s.listeners.splice(at, 1);
      };
    },
    async identify(token) {
      session.ready();
      const account = await accountChoice(session, token);
      if (account === undefined) return false;
      s.identityToken = token;
      await signIn(session, account);
      return true;
    },
    async forget() {
      s.identityToken = null;
      s.stored = null;
      s.storedTc = null;
      await writeConsent(storage, siteKey, null);
      await writeTc(storage, siteKey, null);
      if (s.loaded) await session.settle();
    },
    getSubjectId: () => s.stored?.s ?? null,
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
