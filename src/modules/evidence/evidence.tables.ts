import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type Decision = 'granted' | 'denied';

/**
 * The parts of a TC string the evidence keeps, decoded by the server with @iabtechlabtcf/core. The
 * members after specialFeatureOptins came with the TC string rules (docs/guides/tcf.md): every
 * event recorded since has all of them, an earlier event none (its canonical form lacks them).
 */
export interface EvidenceTcf {
  vendorListVersion: number;
  purposeConsents: number[];
  vendorConsents: number[];
  specialFeatureOptins: number[];
  purposeLegitimateInterests?: number[];
  vendorLegitimateInterests?: number[];
  vendorsDisclosed?: number[];
  policyVersion?: number;
  consentScreen?: number;
  /** Only for strings carrying the channel's purposes in their Publisher TC segment. */
  publisherCustomConsents?: number[];
  /** Only when the decision was sent with a Google Additional Consent string. */
  addtlConsent?: string;
}

/**
 * Where a decision handed over from a sibling domain came from (docs/guides/keep-the-choice.md): the
 * origin the visitor left, and the event of the decision handed over (the visitor's own).
 */
export type EvidenceHandoff =
  | { fromOrigin: string; eventId: string }
  /** From an app of another channel into a WebView page (docs/guides/apps.md): the app's id. */
  | { fromApp: string; eventId: string };

/**
 * The app that sent a decision of an app channel (docs/guides/apps.md), as its headers said:
 * X-Consent-App (checked against the channel's apps), X-Consent-Platform, X-Consent-Sdk-Version.
 */
export interface EvidenceApp {
  appId: string;
  platform: 'ios' | 'android' | 'other';
  sdkVersion: string | null;
}

/**
 * A decision imported from the site's previous CMP (docs/guides/keep-the-choice.md): which one,
 * when the visitor made it there (RFC 3339, whole seconds, UTC), and its raw cookie.
 */
export interface EvidenceImport {
  cmp: 'onetrust' | 'cookiebot' | 'tcf';
  recordedAt: string;
  value: string;
}

/** Where a decision came from: the visitor's answer (banner, preference center), the page, or the service. */
export const EVIDENCE_SOURCES = ['banner', 'preference_center', 'api', 'gpc', 'import', 'handoff'] as const;

/**
 * One row per recorded consent decision. Keyed by organization first so the
 * table can be distributed by organization later. The raw subject id is never stored: only its
 * keyed pseudonym.
 *
 * A retention purge empties every content column (they are nullable for that) and sets purged_at,
 * but keeps id, channel_id, recorded_at and receipt_hash: the ledger's leaf hashes must stay
 * verifiable after the content is gone.
 */
export const evidenceEvents = pgTable(
  'evidence_events',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    /** `psn_` + 64 hex of HMAC-SHA-256(organization's pseudonymSecret, subjectId). */
    subjectPseudonym: text('subject_pseudonym'),
    decisions: jsonb('decisions').$type<Record<string, Decision>>(),
    configVersion: integer('config_version'),
    policyVersion: text('policy_version'),
    source: text('source', { enum: EVIDENCE_SOURCES }),
    language: text('language'),
    gpc: boolean('gpc'),
    origin: text('origin'),
    userAgent: text('user_agent'),
    ipPrefix: text('ip_prefix'),
    /**
     * The visitor's region as resolved when recorded (docs/regions.md). All three are null on events
     * recorded before regions existed, whose canonical form lacks them; a newer event always has
     * regionSource (region is null when unknown).
     */
    region: text('region'),
    regionSource: text('region_source', { enum: ['declared', 'header', 'geoip', 'unknown'] }),
    regime: text('regime', { enum: ['opt-in', 'opt-out', 'notice-only'] }),
    /** The IAB GPP string sent with the decision (US opt-out regions); null when none was sent. */
    gppString: text('gpp_string'),
    /** The IAB TCF string sent with the decision (TCF channels, opt-in regions); null when none was sent. */
    tcString: text('tc_string'),
    /** What the service decoded from tcString (vendorListVersion, consents, opt-ins); null without one. */
    tcf: jsonb('tcf').$type<EvidenceTcf>(),
    /**
     * Whose decision it is: 'device' (the visitor's subjectId) or 'account' (a signed-in visitor's
     * account id, from an identity token; docs/guides/signed-in-visitors.md). Null on events recorded
     * before accounts existed, whose canonical form lacks it: they are all device decisions.
     */
    subjectKind: text('subject_kind', { enum: ['device', 'account'] }),
    /**
     * True when the page showed the visitor that their opt-out preference signal (GPC) was honoured
     * ("Opt-Out Request Honored", docs/guides/us-privacy.md); null otherwise, and on every event
     * recorded before the service kept it, whose canonical form lacks it.
     */
    gpcHonoredShown: boolean('gpc_honored_shown'),
    /**
     * A decision handed over from a sibling domain (source "handoff"): whence, and the event handed
     * over; null otherwise, and on every event before handoffs, whose canonical form lacks it.
     */
    handoff: jsonb('handoff').$type<EvidenceHandoff>(),
    /**
     * A decision imported from the previous CMP (source "import"): which, when, its raw cookie; null
     * otherwise, and on every event before imports, whose canonical form lacks it.
     */
    importedFrom: jsonb('imported_from').$type<EvidenceImport>(),
    /**
     * The app of an app channel's decision, in place of `origin` (null then); null otherwise, and on
     * every event before apps, whose canonical form lacks it.
     */
    app: jsonb('app').$type<EvidenceApp>(),
    /**
     * How the consent analytics count the decision (src/modules/consent/decisions.ts): accept_all,
     * reject_all or custom, computed once when it is recorded (events recorded before the column by
     * migration 0032). Not part of the canonical event.
     */
    outcome: text('outcome', { enum: ['accept_all', 'reject_all', 'custom'] }),
    /** Whole seconds, as shown: the stored value is exactly the one the receipt hash covers. */
    recordedAt: at('recorded_at').notNull(),
    /** The ledger leaf hash (hex) of the event as first recorded; survives the purge. */
    receiptHash: text('receipt_hash').notNull(),
    /**
     * SHA-256 (hex) of the receipt token only the visitor received (docs/receipts.md); null on events
     * from before receipts. Not part of the canonical event; emptied by the purge.
     */
    receiptTokenHash: text('receipt_token_hash'),
    purgedAt: at('purged_at'),
    /**
     * The order in which the service recorded the event (one sequence, migration 0023): "newest" for
     * the consent state, where recordedAt's whole seconds would tie. Not part of the canonical event.
     */
    seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('evidence_events_seq')`),
  },
  (t) => [
    // Partitioned by environment, then by time (migration `evidence_partitions`, partitions.ts): every
    // unique key of a partitioned table holds its partition key, so the key is the event's identity
    // (organization, id) plus environment and recordedAt. Ids are random, so (organization, id) alone
    // stays unique in practice; the table never relied on a database check of it.
    // Each index below names the query it serves (docs/guides/postgresql.md, "Indexes").
    // GET /v1/evidence/:id, its proof, visitor receipts: one probe per partition by the key's prefix.
    primaryKey({ columns: [t.organizationId, t.id, t.environment, t.recordedAt] }),
    // GET /v1/evidence without filters (and with from/to, regime, purpose): newest first per tenant.
    index('evidence_events_list_idx').on(t.organizationId, t.environment, t.recordedAt, t.id),
    // GET /v1/evidence?channelId=…, exports of one channel, and the live purge's per-channel check.
    index('evidence_events_channel_idx').on(t.organizationId, t.environment, t.channelId, t.recordedAt, t.id),
    // GET /v1/evidence?source=… for the rare sources (api, preference_center, gpc): a seek, not a walk.
    // Partial: the banner's events, nearly all of them, are found by the list index as fast.
    index('evidence_events_source_idx')
      .on(t.organizationId, t.environment, t.source, t.recordedAt, t.id)
      .where(sql`source <> 'banner'`),
    // GET /v1/evidence?region=… in list order (a country reads its code and its subdivisions' range).
    // Kept, measured: without it a page of a region the tenant has few or no events of walks the
    // tenant's whole history in the list index (289 ms on 10,000 events, linear in them).
    index('evidence_events_region_idx').on(t.organizationId, t.environment, t.region, t.recordedAt, t.id),
    // One visitor's events (subjectId filter, consent state replay and purge fallback); purged rows stay out.
    index('evidence_events_subject_idx')
      .on(t.organizationId, t.environment, t.subjectPseudonym, t.recordedAt, t.id)
      .where(sql`subject_pseudonym is not null`),
    // The row purge (retention.ts): one channel's unpurged events oldest first, so a run visits the
    // events it purges and not those of the channels that keep longer (the index it replaced, on
    // environment and recordedAt, walked every channel's older events). Also each channel's first
    // event of an export (evidence-export.sql.ts), one probe per channel.
    index('evidence_events_purge_idx')
      .on(t.organizationId, t.channelId, t.recordedAt)
      .where(sql`purged_at is null`),
  ],
);

/**
 * An event as the code handles it. `seq` is left to SQL: only the consent state's ordering reads it.
 * `subjectKind`, `gpcHonoredShown`, `outcome`, `handoff`, `importedFrom` and `app` may be left out where an
 * event from before them is made (they read as null).
 */
export type EvidenceRow = Omit<
  typeof evidenceEvents.$inferSelect,
  'seq' | 'subjectKind' | 'gpcHonoredShown' | 'outcome' | 'handoff' | 'importedFrom' | 'app'
> & {
  subjectKind?: (typeof evidenceEvents.$inferSelect)['subjectKind'];
  gpcHonoredShown?: boolean | null;
  outcome?: DecisionOutcome | null;
  handoff?: EvidenceHandoff | null;
  importedFrom?: EvidenceImport | null;
  app?: EvidenceApp | null;
};

/** How the consent analytics count a decision (the `outcome` column). */
export type DecisionOutcome = 'accept_all' | 'reject_all' | 'custom';
