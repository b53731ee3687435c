/** The shapes the SDK reads from `GET …/config` (built by the service's buildVisitorConfig). */
export type Decision = 'granted' | 'denied';
export type Decisions = Record<string, Decision>;
export type Source = 'banner' | 'preference_center' | 'gpc';
/** Contract §15: what the law of the visitor's region asks of the page. */
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
  configVersion: number;
  defaultLanguage: string;
  languages: string[];
  privacyPolicy: { url: string | null; version: string };
  purposes: Purpose[];
  technologies: Technology[];
  /** Contract §15, resolved by the service for this visitor; absent from servers before regions. */
  regime?: Regime;
  consentMaxAgeDays?: number;
  consentRequiredSince?: number;
  region?: { code: string | null; source: string };
}

/** What the first-party cookie holds. */
export interface StoredConsent {
  /** The visitor's opaque id, random, kept across decisions. */
  s: string;
  /** The last decision, with the configVersion it was made for and when (ms since epoch). */
  d?: Decisions;
  v?: number;
  t?: number;
}

/** A decision not yet acknowledged by the service; kept in localStorage so a reload retries it. */
export interface PendingPost {
  key: string;
  body: {
    subjectId: string;
    decisions: Decisions;
    configVersion: number;
    source: Source;
    language: string;
    gpc: boolean;
  };
}
