import { bigint, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The consent state of a subject: per channel and purpose, the newest decision of the
 * subject's evidence that has not been purged (newest: the order in which the service recorded the
 * events, evidence_events.seq; recordedAt alone ties within a second). Migration 0019; maintained by
 * consent-state.sql.ts in the consent write's statement, by the retention purge and by the backfill
 * of events older than the table.
 */
export const consentState = pgTable(
  'consent_state',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    subjectPseudonym: text('subject_pseudonym').notNull(),
    purposeKey: text('purpose_key').notNull(),
    decision: text('decision', { enum: ['granted', 'denied'] }).notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull(),
    eventId: text('event_id').notNull(),
    /** The event's evidence_events.seq: which decision is newest (migration 0023). */
    eventSeq: bigint('event_seq', { mode: 'number' }).notNull(),
    configVersion: integer('config_version').notNull(),
    source: text('source').notNull(),
    region: text('region'),
    regionSource: text('region_source'),
    regime: text('regime'),
  },
  (t) => [
    primaryKey({
      name: 'consent_state_pkey',
      columns: [t.organizationId, t.channelId, t.subjectPseudonym, t.purposeKey],
    }),
  ],
);

export type ConsentStateRow = typeof consentState.$inferSelect;

/**
 * The TC string of a subject's consent state (docs/guides/tcf.md): per channel and subject, the
 * newest unpurged event that carried one (newest by evidence_events.seq, as for the purposes). Kept
 * by the same three writers as consent_state, so a lookup reads it by key instead of walking the
 * subject's events. Only decisions answering a notice with TCF settings carry a TC string, so only
 * TCF channels have rows here.
 */
export const consentStateTcStrings = pgTable(
  'consent_state_tc_strings',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    channelId: text('channel_id').notNull(),
    subjectPseudonym: text('subject_pseudonym').notNull(),
    tcString: text('tc_string').notNull(),
    eventId: text('event_id').notNull(),
    eventSeq: bigint('event_seq', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({
      name: 'consent_state_tc_strings_pkey',
      columns: [t.organizationId, t.channelId, t.subjectPseudonym],
    }),
  ],
);
