import { type Choice, decide as decideFor } from '../../../sdk/src/decisions.ts';
import { initialState } from '../../../sdk/src/regime.ts';
import type { Decisions, SiteConfig, Source, StoredConsent } from '../../../sdk/src/types.ts';
import { createDeliveryQueue } from './delivery-queue.ts';
import { type GppSection, gppStringNow } from './gpp.ts';
import { keysNow, writeKeys } from './iab-keys.ts';
import { readIabKeys, type StoredTc, writeConsent, writeIabKeys, writeTc } from './stored-state.ts';
import { keptNow, type TcfContext, tcStringFor } from './tcf.ts';
import { createTransport, randomId, type Transport } from './transport.ts';
import type { ChangeListener, ConsentClientOptions, TcfVendorChoice } from './types.ts';

/** Loaded once `load()` has the config: what every step after it works on. */
export interface Loaded {
  config: SiteConfig;
  language: string;
  /** TCF channels, in opt-in regions: the vendor list slice the TC strings are made on. */
  tcf: TcfContext | null;
  /** The GPP section this device's string carries (gpp.ts); null where GPP does not apply. */
  gpp: GppSection | null;
}

/** One client's state: kept per client, never in module variables, as the web SDK keeps it per instance. */
export interface SessionState {
  loaded: Loaded | null;
  /** The decision kept in the app's storage, in the web's shape. */
  stored: StoredConsent | null;
  /** TCF channels: the TC (and AC) string made with `stored`. */
  storedTc: StoredTc | null;
  /** The decisions in force; null while nothing holds in an opt-in region. */
  decisions: Decisions | null;
  ask: boolean;
  identityToken: string | null;
  listeners: ChangeListener[];
}

export type Session = ReturnType<typeof createSession>;

/** A kept TC string as `…/preferences` takes it. */
export const sentTc = (tc: StoredTc | null) =>
  tc ? { tcString: tc.tc, ...(tc.ac && { addtlConsent: tc.ac }) } : {};

/**
 * What a client does between its calls: works out what holds (by the web's rules, regime.ts),
 * records a choice with its strings, and hands the app's writer the in-app keys of each state.
 */
export function createSession(options: ConsentClientOptions) {
  const { storage, siteKey } = options;
  const transport: Transport = createTransport(options);
  const s: SessionState = {
    loaded: null,
    stored: null,
    storedTc: null,
    decisions: null,
    ask: false,
    identityToken: null,
    listeners: [],
  };
  const queue = createDeliveryQueue(transport, storage, siteKey, () => s.identityToken);

  const ready = (): Loaded => {
    if (!s.loaded) throw new Error('[consent-service] call load() first');
    return s.loaded;
  };

  function emit() {
    for (const listener of [...s.listeners]) {
      try {
        listener(s.decisions ? { ...s.decisions } : null);
      } catch (error) {
        console.error(error);
      }
    }
  }

  /**
   * On TCF channels, the kept string as tcf.js would serve it now for the stored decision
   * (tcf.ts keptNow), kept when it changed. Whether the decision holds: only with its string.
   */
  async function tcHolds(): Promise<boolean> {
    const { tcf } = ready();
    if (!tcf) return true;
    const now = s.storedTc && s.stored?.d ? keptNow(tcf, s.storedTc, s.stored.d) : null;
    if (now && (now.tc !== s.storedTc?.tc || now.ac !== s.storedTc?.ac)) {
      s.storedTc = now;
      await writeTc(storage, siteKey, now);
    }
    return now !== null;
  }

  /** The in-app keys of the state now (iab-keys.ts keysNow); every key written before and not now is removed. */
  async function publishKeys() {
    const writer = options.defaultsWriter;
    if (!writer) return;
    const { config, gpp } = ready();
    const next = keysNow(config, gpp, s.decisions, s.decisions && config.tcf ? s.storedTc : null);
    const written = await writeKeys(writer, next, await readIabKeys(storage, siteKey));
    await writeIabKeys(storage, siteKey, written);
  }

  /** What holds now for the stored decision, by the web's rules (regime.ts), and the keys that say so. */
  async function settle() {
    const { config } = ready();
    const state = initialState(config, s.stored, false, Date.now());
    const holds = !state.decisions || (await tcHolds());
    s.decisions = holds ? state.decisions : null;
    s.ask = state.ask || !holds;
    await publishKeys();
    emit();
  }

  async function record(choice: Choice, source: Source, vendors?: TcfVendorChoice): Promise<Decisions> {
    const { config, language, tcf, gpp } = ready();
    const next = decideFor(config.purposes, choice, false);
    const subjectId = s.stored?.s || randomId(16);
    const tc = tcf ? tcStringFor(tcf, config, choice, next, source, vendors) : undefined;
    s.stored = { s: subjectId, d: next, v: config.configVersion, t: Date.now() };
    s.storedTc = tc ? { tc: tc.tcString, ...(tc.addtlConsent && { ac: tc.addtlConsent }) } : null;
    // As sdk.js sends it: the US section's string (the EU TCF section's, tcf.js's, is not sent).
    const gppString = gpp && !tcf ? gppStringNow(gpp, config, next, null) : null;
    // Stored before it is sent: a decision the app is killed on is still this device's, and sent later.
    await writeConsent(storage, siteKey, s.stored);
    await writeTc(storage, siteKey, s.storedTc);
    await queue.enqueue({
      key: randomId(16),
      ...(s.identityToken && { account: 1 as const }),
      body: {
        subjectId,
        decisions: next,
        configVersion: config.configVersion,
        source,
        language,
        gpc: false,
        ...(gppString && { gppString }),
        ...tc,
      },
    });
    s.decisions = next;
    s.ask = false;
    await publishKeys();
    emit();
    return { ...next };
  }

  return { options, transport, queue, s, ready, tcHolds, settle, record };
}
