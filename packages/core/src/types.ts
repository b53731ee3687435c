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
  /** TCF channels: receives the IABTCF_ keys of IAB's CMP API for mobile. */
  defaultsWriter?: DefaultsWriter;
  /** Default: the global fetch. */
  fetch?: FetchLike;
}

/** A choice: per purpose key, granted (`true` or `'granted'`) or not. Unnamed optional purposes are denied. */
export type DecisionsInput = Record<string, boolean | Decision>;

export interface DecideOptions {
  /** What the evidence says the choice came through; default `banner`. */
  source?: Extract<Source, 'banner' | 'preference_center' | 'api'>;
}

export type ChangeListener = (decisions: Decisions | null) => void;

export interface ConsentClient {
  /** Fetches the channel's config, reads the stored decision, and retries decisions not yet delivered. */
  load(): Promise<void>;
  /** Whether the app must ask now (no decision that still holds, in an opt-in region); false before load. */
  shouldAsk(): boolean;
  /** The channel's config for this device's region; null before load. */
  config(): SiteConfig | null;
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
