import { type AccountChoice, reconcile } from '../../../sdk/src/account-choice.ts';
import { type Choice, decide as decideFor, pickLanguage } from '../../../sdk/src/decisions.ts';
import { initialState } from '../../../sdk/src/regime.ts';
import type { Decisions, SiteConfig, Source, StoredConsent } from '../../../sdk/src/types.ts';
import { createDeliveryQueue } from './delivery-queue.ts';
import { cmpKeys, type IabKeys, tcStringKeys, writeKeys } from './iab-keys.ts';
import {
  readConsent,
  readIabKeys,
  readTc,
  type StoredTc,
  writeConsent,
  writeIabKeys,
  writeTc,
} from './stored-state.ts';
import { loadTcf, type TcfContext, tcStillValid, tcStringFor } from './tcf.ts';
import { createTransport, randomId } from './transport.ts';
import type {
  ChangeListener,
  ConsentClient,
  ConsentClientOptions,
  DecideOptions,
  DecisionsInput,
} from './types.ts';

/** Loaded once `load()` has the config: what every step after it works on. */
interface Loaded {
  config: SiteConfig;
  language: string;
  /** TCF channels, in opt-in regions: the vendor list slice the TC strings are made on. */
  tcf: TcfContext | null;
}

/**
 * A headless consent client: the app draws its own banner (or @consent-service/react-native's) and
 * asks this client what to do. What a choice means (required purposes granted, the regime's
 * defaults, when a decision stops holding, which choice wins at sign-in) is the web SDK's own code
 * in sdk/src, imported, so a choice means the same in an app as on the web. Apps send no GPC signal.
 */
export function createConsentClient(options: ConsentClientOptions): ConsentClient {
  const { storage, siteKey } = options;
  const transport = createTransport(options);
  let identityToken: string | null = null;
  const queue = createDeliveryQueue(transport, storage, siteKey, () => identityToken);
  const listeners: ChangeListener[] = [];
  let loaded: Loaded | null = null;
  let stored: StoredConsent | null = null;
  let storedTc: StoredTc | null = null;
  let decisions: Decisions | null = null;
  let ask = false;

  const ready = (): Loaded => {
    if (!loaded) throw new Error('[consent-service] call load() first');
    return loaded;
  };

  function emit() {
    for (const listener of [...listeners]) {
      try {
        listener(decisions ? { ...decisions } : null);
      } catch (error) {
        console.error(error);
      }
    }
  }

  /**
   * What holds now for the stored decision, by the web's rules (regime.ts). On TCF channels a
   * decision holds only with the TC string made with it, still valid for the channel, as on the web.
   */
  async function settle() {
    const { config } = ready();
    const state = initialState(config, stored, false, Date.now());
    const tcHolds = !config.tcf || (storedTc !== null && tcStillValid(storedTc.tc, config.tcf));
    decisions = tcHolds ? state.decisions : null;
    ask = state.ask || !tcHolds;
    await publishKeys();
    emit();
  }

  /**
   * The IABTCF_ keys for the app's writer: the CMP's own on every TCF channel, the string's once a
   * decision holds; every key written before and not now is removed.
   */
  async function publishKeys() {
    const writer = options.defaultsWriter;
    if (!writer) return;
    const { config } = ready();
    let next: IabKeys = {};
    if (config.tcfCmp) {
      const tc = decisions && config.tcf ? storedTc : null;
      next = tc ? tcStringKeys(tc.tc, config.tcfCmp, tc.ac) : cmpKeys(config.tcfCmp);
    }
    const written = await writeKeys(writer, next, await readIabKeys(storage, siteKey));
    await writeIabKeys(storage, siteKey, written);
  }

  async function record(choice: Choice, source: Source): Promise<Decisions> {
    const { config, language, tcf } = ready();
    const next = decideFor(config.purposes, choice, false);
    const subjectId = stored?.s || randomId(16);
    const tc = tcf ? tcStringFor(tcf, config, choice, next, source) : undefined;
    stored = { s: subjectId, d: next, v: config.configVersion, t: Date.now() };
    storedTc = tc ? { tc: tc.tcString, ...(tc.addtlConsent && { ac: tc.addtlConsent }) } : null;
    // Stored before it is sent: a decision the app is killed on is still this device's, and sent later.
    await writeConsent(storage, siteKey, stored);
    await writeTc(storage, siteKey, storedTc);
    await queue.enqueue({
      key: randomId(16),
      ...(identityToken && { account: 1 as const }),
      body: {
        subjectId,
        decisions: next,
        configVersion: config.configVersion,
        source,
        language,
        gpc: false,
        ...tc,
      },
    });
    decisions = next;
    ask = false;
    await publishKeys();
    emit();
    return { ...next };
  }

  async function fetchConfig(): Promise<SiteConfig> {
    const res = await transport.send('config', 'GET');
    if (!res.ok) throw new Error(`[consent-service] config unavailable: HTTP ${res.status}`);
    return (await res.json()).data as SiteConfig;
  }

  /** The account's choice for `token`; undefined when the service refused the token. */
  async function accountChoice(token: string): Promise<AccountChoice | null | undefined> {
    const res = await transport.send('identity', 'POST', { token });
    if (!res.ok) return undefined;
    return ((await res.json()).data?.state as AccountChoice | null) ?? null;
  }

  return {
    async load() {
      const [config, kept, keptTc] = await Promise.all([
        fetchConfig(),
        readConsent(storage, siteKey),
        readTc(storage, siteKey),
      ]);
      const tcf = await loadTcf(transport, config);
      loaded = { config, language: pickLanguage(config, options.language), tcf };
      stored = kept;
      storedTc = keptTc;
      await settle();
      // Decisions an earlier run could not deliver.
      void queue.flush();
    },
    shouldAsk: () => ask,
    config: () => loaded?.config ?? null,
    decide(input: DecisionsInput, opts?: DecideOptions) {
      const choice: Record<string, boolean> = {};
      for (const [key, value] of Object.entries(input)) choice[key] = value === true || value === 'granted';
      return record(choice, opts?.source ?? 'banner');
    },
    acceptAll: (opts) => record('accept-all', opts?.source ?? 'banner'),
    rejectAll: (opts) => record('reject-all', opts?.source ?? 'banner'),
    getDecisions: () => (decisions ? { ...decisions } : null),
    onChange(listener) {
      listeners.push(listener);
      return () => {
        const at = listeners.indexOf(listener);
        if (at >= 0) listeners.splice(at, 1);
      };
    },
    async identify(token) {
      const { language } = ready();
      const account = await accountChoice(token);
      if (account === undefined) return false;
      identityToken = token;
      // The newest explicit choice wins: the account's, or this device's own, then sent for the account.
      const { stored: holds, upload } = reconcile(stored, account);
      if (holds) {
        stored = { ...holds, s: holds.s || randomId(16) };
        await writeConsent(storage, siteKey, stored);
        if (upload && stored.d && typeof stored.v === 'number')
          await queue.enqueue({
            key: randomId(16),
            account: 1,
            body: {
              subjectId: stored.s,
              decisions: stored.d,
              configVersion: stored.v,
              source: 'banner',
              language,
              gpc: false,
            },
          });
      }
      await settle();
      return true;
    },
    async forget() {
      identityToken = null;
      stored = null;
      storedTc = null;
      await writeConsent(storage, siteKey, null);
      await writeTc(storage, siteKey, null);
      if (loaded) await settle();
    },
    getSubjectId: () => stored?.s ?? null,
    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
