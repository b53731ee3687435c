import type { Decision, Decisions, SiteConfig, Source } from '../../../sdk/src/types.ts';

export type { Decision, Decisions, SiteConfig, Source };

/** An async key-value store, as React Native's AsyncStorage is (and `localStorage` wrapped in promises). */
export interface ConsentStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** Where the IAB in-app keys go: on a device, NSUserDefaults or SharedPreferences. */
export interface DefaultsWriter {
  set(key: string, value: string | number): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/** The answer `fetch` gives, as far as the client reads it. */
export interface FetchResponse {
  ok: boolean;
  status: number;
  /** Read for the vendor list's Content-Language; without it the list is asked for in English. */
  headers?: { get(name: string): string | null };
  json(): Promise<any>;
}

/** A `fetch` the client can call: the global one of React Native, Node and browsers fits. */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<FetchResponse>;

export type Platform = 'ios' | 'android' | 'other';

export interface ConsentClientOptions {
  /** The service's base URL, e.g. `https://consent.example.com`. */
  baseUrl: string;
  siteKey: string;
  /** An app channel's registered app id (bundle id or package name): sent as X-Consent-App. */
  appId?: string;
  storage: ConsentStorage;
  /** The device's language (BCP 47); the channel's nearest language is used, else its default. */
  language?: string;
  /** Test channels only: the region to act as if the visitor were in (ISO 3166, e.g. `US-CA`). */
  region?: string;
  /** With appId: sent as X-Consent-Platform (default `other`). */
  platform?: Platform;
  /**
   * Receives the IAB in-app keys: the IABTCF_ keys of IAB's TCF CMP API on TCF channels, and the
   * IABGPP_ keys of IAB's GPP CMP API where GPP applies (US opt-out regions, and TCF channels with a
   * gppCmpId); keys no longer set are removed.
   */
  defaultsWriter?: DefaultsWriter;
  /** Default: the global fetch. */
  fetch?: FetchLike;
}

/** A choice: per purpose key, granted (`true` or `'granted'`) or not. Unnamed optional purposes are denied. */
export type DecisionsInput = Record<string, boolean | Decision>;

export interface DecideOptions {
  /** What the evidence says the choice came through; default `banner`. */
  source?: Extract<Source, 'banner' | 'preference_center' | 'api'>;
  /**
   * TCF channels: the choice of the app's own second layer, per IAB purpose, vendor and special
   * feature, encoded into the TC string as the web's "Manage options" encodes its toggles. Ignored
   * where TCF does not apply.
   */
  tcf?: TcfVendorChoice;
}

/**
 * A second-layer choice, in the web layers' model: the ids consented to, and the legitimate
 * interests NOT objected to. An id the channel does not offer (see `ConsentClient.tcf().offered`)
 * is dropped; an absent list is none.
 */
export interface TcfVendorChoice {
  purposeConsents?: number[];
  /** Purposes whose legitimate interest was not objected to (never 1 or 3 to 6: consent only). */
  purposeLegitimateInterests?: number[];
  vendorConsents?: number[];
  /** Vendors whose legitimate interest was not objected to. */
  vendorLegitimateInterests?: number[];
  specialFeatureOptins?: number[];
  /** Google Additional Consent providers consented to (channels with providers). */
  acConsents?: number[];
}

/** The channel's slice of IAB's vendor list as the service serves it (declarations translated). */
export interface VendorListJson {
  gvlSpecificationVersion: number;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  lastUpdated: string;
  purposes: Record<string, { id: number; name: string; description: string; illustrations?: string[] }>;
  specialPurposes: Record<string, { id: number; name: string; description: string }>;
  features: Record<string, { id: number; name: string; description: string }>;
  specialFeatures: Record<string, { id: number; name: string; description: string }>;
  stacks: Record<string, { id: number; name: string; description: string; purposes: number[] }>;
  vendors: Record<
    string,
    {
      id: number;
      name: string;
      purposes: number[];
      legIntPurposes: number[];
      flexiblePurposes: number[];
      specialPurposes: number[];
      features: number[];
      specialFeatures: number[];
      [field: string]: unknown;
    }
  >;
  [field: string]: unknown;
}

/** What an app's own TCF second layer needs: the texts, what it may offer, and the kept choice. */
export interface TcfView {
  /** The language of the declarations (the service's Content-Language) and of the TC string. */
  language: string;
  vendorList: VendorListJson;
  /** Every id a second layer may offer, after the channel's publisher restrictions. */
  offered: Required<TcfVendorChoice>;
  /** What the kept TC string (and AC string) hold, to prefill the layer; null before any. */
  current: Required<TcfVendorChoice> | null;
}

export type ChangeListener = (decisions: Decisions | null) => void;

export interface ConsentClient {
  /** Fetches the channel's config, reads the stored decision, and retries decisions not yet delivered. */
  load(): Promise<void>;
  /** Whether the app must ask now (no decision that still holds, in an opt-in region); false before load. */
  shouldAsk(): boolean;
  /** The channel's config for this device's region; null before load. */
  config(): SiteConfig | null;
  /** TCF channels, in regions where TCF applies: what a second layer shows and offers; else null. */
  tcf(): TcfView | null;
  /** Records a choice: stored at once, delivered in the background. Resolves with the decisions in force. */
  decide(decisions: DecisionsInput, options?: DecideOptions): Promise<Decisions>;
  acceptAll(options?: DecideOptions): Promise<Decisions>;
  rejectAll(options?: DecideOptions): Promise<Decisions>;
  /** The decisions in force; null while nothing is decided in an opt-in region. */
  getDecisions(): Decisions | null;
  /** Calls `listener` with each new state; returns the function that stops it. */
  onChange(listener: ChangeListener): () => void;
  /** Signs the visitor in with the identity token the app's backend signed; false when refused. */
  identify(token: string): Promise<boolean>;
  /** Signs out and forgets this device's decision and id (recorded evidence stays); asks again. */
  forget(): Promise<void>;
  /** The id the service knows this device by; null before its first decision. */
  getSubjectId(): string | null;
  /** Delivers what waits now; resolves true when nothing is left waiting. */
  flush(): Promise<boolean>;
  /** Stops retry timers (an app going away); stored decisions are retried by the next client. */
  close(): void;
}
