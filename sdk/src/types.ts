import type { UiStrings } from './strings.ts';
/** The shapes the SDK reads from `GET …/config` (built by the service's buildVisitorConfig). */
export type Decision = 'granted' | 'denied';
export type Decisions = Record<string, Decision>;
export type Source = 'banner' | 'preference_center' | 'api' | 'gpc' | 'import';
/** What the law of the visitor's region asks of the page (docs/regions.md). */
export type Regime = 'opt-in' | 'opt-out' | 'notice-only';

export interface Purpose {
  key: string;
  name: string;
  description: string | null;
  legalBasis: string;
  required: boolean;
  translations: Record<string, { name: string; description: string | null }>;
  consentModeSignals: string[];
  gpcOptOut: boolean;
}

export interface Technology {
  name: string;
  vendor: string | null;
  purposeKeys: string[];
}

export interface SiteConfig {
  channelId: string;
  configVersion: number;
  defaultLanguage: string;
  languages: string[];
  privacyPolicy: { url: string | null; version: string };
  purposes: Purpose[];
  technologies: Technology[];
  /** Resolved by the service for this visitor's region; absent from servers before regions. */
  regime?: Regime;
  consentMaxAgeDays?: number;
  /** Days without a banner after the visitor refused every optional purpose; 0 or absent: none. */
  rejectCooldownDays?: number;
  consentRequiredSince?: number;
  region?: { code: string | null; source: string };
  /** Where the site's pages may run (page-origin.ts); absent from servers before the check: nowhere. */
  origins?: string[];
  /** The operator's IAB CMP id for the GPP CMP API; null or absent: no GPP. */
  gppCmpId?: number | null;
  /** Which GPP section US visitors get (gpp.js, src/shared/us-gpp-sections.ts); absent: usnat. */
  gppSections?: 'usnat' | 'state';
  /** Microsoft's consent signals (integrations.ts); absent: neither. */
  integrations?: { microsoftUet: boolean; microsoftClarity: boolean };
  /** A TCF channel's settings, in opt-in regions only; absent: no TCF for this visitor. */
  tcf?: TcfConfig | null;
  /** A TCF channel's CMP, in every region: what `__tcfapi` names without tcf.js (tcf-answers.ts). */
  tcfCmp?: TcfCmp;
  /**
   * The path the site forwards to the service on its own origins (docs/guides/keep-the-choice.md):
   * through it the service sets the decision cookie itself. null or absent: none.
   */
  firstPartyPath?: string | null;
  /** The decision cookie's Domain (one decision on every subdomain); null or absent: host-only. */
  cookieDomain?: string | null;
  /** The choice is handed over to the channel's other registrable domains (siblingDomains). */
  crossDomain?: boolean;
  /** Previous CMPs whose cookies are imported: their category id to our purpose key. */
  imports?: Array<{ from: 'onetrust' | 'cookiebot' | 'tcf'; purposes: Record<string, string> }>;
  /**
   * With crossDomain on and origins on several registrable domains: each domain with its active
   * origins (wildcards as `https://*.example.com`); [] or absent otherwise.
   */
  siblingDomains?: Array<{ domain: string; origins: string[] }>;
  /** The banner's words in the channel's languages other than English (src/shared/banner-words.ts). */
  bannerWords?: Record<string, UiStrings>;
}

/** The CMP the CMP API names, and whether GDPR applies to this visitor. */
export interface TcfCmp {
  cmpId: number;
  cmpVersion: number;
  tcfPolicyVersion: number;
  gdprApplies: boolean;
}

/** What tcf.js needs of a TCF channel (docs/guides/tcf.md): its CMP and its slice of the vendor list. */
export interface TcfConfig {
  cmpId: number;
  cmpVersion: number;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  gdprApplies: true;
  /** The channel's vendors in the vendor list of vendorListVersion; tcf.js adds `lang`. */
  vendorListUrl: string;
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  /** After a decision, a control that reopens the preferences (tcf.js); absent from older servers: "floating". */
  reopenControl?: 'floating' | 'none';
  /** The channel's publisher restrictions, encoded in the core string ([] or absent: none). */
  publisherRestrictions?: Array<{
    purposeId: number;
    type: 'not_allowed' | 'require_consent' | 'require_li';
    vendorIds: number[];
  }>;
  /** Google Additional Consent's providers (tcf.js makes the AC string); null or absent: none. */
  googleAdditionalConsent?: {
    providerIds: number[];
    /** Names and policies from Google's ATP list (absent from older servers: ids only). */
    providers?: Array<{ id: number; name: string; policyUrl: string | null }>;
  } | null;
}

/** What the first-party cookie holds. */
export interface StoredConsent {
  /** The visitor's opaque id, random, kept across decisions. */
  s: string;
  /** The last decision, with the configVersion it was made for and when (ms since epoch). */
  d?: Decisions;
  v?: number;
  t?: number;
  /** 1 when the decision is the SDK's record of a GPC signal (source gpc), not the visitor's own. */
  g?: 1;
}

export type ConsentListener = (decisions: Decisions | null) => void;

/** What the SDK offers the page: `window.ConsentService`, and `createConsent` of the npm package. */
export interface ConsentApi {
  /** The decisions in force on this page; null until the visitor decided (or the regime's defaults apply). */
  getDecisions(): Decisions | null;
  /** Calls `listener` with each new state; returns the function that stops it. */
  onChange(listener: ConsentListener): () => void;
  /** Opens the preferences (the customize view). */
  showPreferences(): void;
  /** Grants every purpose, recorded with source "api", as if the visitor had clicked "Accept all". */
  acceptAll(): void;
  /** Denies every optional purpose, recorded with source "api". */
  rejectAll(): void;
  /** The receipt of the visitor's last delivered decision; null when none yet. */
  getReceiptUrl(): string | null;
  /** The id the service knows this visitor by (the subjectId of their decisions); null before the first. */
  getSubjectId(): string | null;
  /** Forgets this visitor's decision and id here (recorded evidence stays) and asks again. */
  reset(): void;
  /**
   * Signs the visitor in (docs/guides/signed-in-visitors.md): `token` is the JWT the site's backend
   * signed. The account's choice applies here without asking; a newer choice of this device's own is
   * recorded for the account. Resolves once applied (false: the service refused the token).
   */
  identify(token: string): Promise<boolean>;
  /** Signs the visitor out: forgets the account and this device's copy of its choice, and asks again. */
  forget(): void;
  /**
   * Opens the developer panel (docs/guides/developer-panel.md), as `#cs_debug` in the page's URL
   * does: on test channels only; on a live channel it does nothing.
   */
  debug(): void;
}

/** A decision not yet acknowledged by the service; kept in localStorage so a reload retries it. */
export interface PendingPost {
  key: string;
  /**
   * 1: made while signed in, so it is the account's: the identity token is added when it is sent (the
   * token itself is never put in storage), and the decision is the device's if none is at hand then.
   */
  account?: 1;
  body: {
    subjectId: string;
    decisions: Decisions;
    configVersion: number;
    source: Source;
    language: string;
    gpc: boolean;
    /** The IAB GPP string the visitor's decision made, in US opt-out regions with a gppCmpId. */
    gppString?: string;
    /** The IAB TC string of the visitor's choice in the TCF layers (tcf.js). */
    tcString?: string;
    /** The page showed that the GPC signal was honoured ("Opt-Out Request Honored"). */
    gpcHonoredShown?: boolean;
    /** Source "import": the previous CMP's cookie the decision was read from (import.js). */
    importedFrom?: ImportedChoice['importedFrom'];
  };
}

/** A choice read from the site's previous CMP's cookie (sdk/src/import): per optional purpose. */
export interface ImportedChoice {
  choice: Record<string, boolean>;
  importedFrom: { cmp: 'onetrust' | 'cookiebot' | 'tcf'; recordedAt: string; value: string };
}

/** What tcf.js reports of a decision: the choice for the channel's purposes, and the TC string made. */
export type TcfDone = (choice: 'accept-all' | 'reject-all' | Record<string, boolean>, tc: TcSent) => void;

/** What a TCF decision sends beside its decisions: its TC string, and its AC string when there is one. */
export interface TcSent {
  tcString: string;
  addtlConsent?: string;
}

/** The TCF CMP started by tcf.js (sdk/src/tcf): on TCF channels it takes the banner's place. */
export interface TcfHandle {
  /** Consent Mode's advertising signals from the visitor's TC string (tcf/consent-mode.ts); null: none yet. */
  consentMode(): Record<string, Decision> | null;
  /**
   * A returning visitor: when the TC string kept for this configVersion still holds, makes it the
   * CMP API's (`tcloaded`), closes any open layers and returns true; false means ask again.
   */
  restore(): boolean;
  /**
   * Shows the TCF layers; `done` gets the decision. `signedIn`: the first layer says that the choice
   * applies wherever the visitor is signed in.
   */
  show(view: 'banner' | 'customize', done: TcfDone, signedIn?: unknown): void;
  /** The page's acceptAll() or rejectAll(): what the layers' buttons do (string, events, layers closed). */
  decide(action: 'accept-all' | 'reject-all', done: TcfDone): void;
  /**
   * At sign-in, once sdk.js stored the choice that holds: when it is the account's, its TC string
   * becomes this device's. Returns this device's TC string (re-encoded for now) and its AC string, to
   * record an own choice newer than the account's for the account; undefined when there is none.
   */
  signIn(
    account: {
      tcString?: string | null;
      addtlConsent?: string | null;
      configVersion: number;
      recordedAt: string;
    } | null,
  ): TcSent | undefined;
}

/** The GPP CMP API started by gpp.js (sdk/src/gpp): the SDK tells it each state of the visitor. */
export interface GppHandle {
  /** Makes `decisions` (null: none yet) and the GPC signal the usnat section; returns the GPP string. */
  update(decisions: Decisions | null, purposes: Purpose[], gpc: boolean): string;
}
