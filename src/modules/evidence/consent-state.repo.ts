import { sql } from 'drizzle-orm';
import { readQuery, rowsOf } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { channels } from '../channels/channels.tables.ts';
import { consentStateCtes, stateInputCte, tcStringUpsert } from './consent-state.sql.ts';
import type { EvidenceScope } from './evidence.repo.ts';
import type { EvidenceRow } from './evidence.tables.ts';

/** One purpose of one subject's state, with the channel's decision lifetime (consentMaxAgeDays). */
export interface StatePurposeRow {
  subjectPseudonym: string;
  purposeKey: string;
  decision: 'granted' | 'denied';
  recordedAt: Date;
  eventId: string;
  configVersion: number;
  source: NonNullable<EvidenceRow['source']>;
  region: string | null;
  regionSource: string | null;
  regime: EvidenceRow['regime'];
  consentMaxAgeDays: number;
  /** The subject's TC string (the same on each of its rows); only `read` fills it, null without one. */
  tcString?: string | null;
}

/** An event the purge emptied, with what it was about (read before the purge nulls it). */
export interface PurgedEvent {
  organizationId: string;
  environment: string;
  id: string;
  channelId: string;
  subjectPseudonym: string;
}

function purposeRow(r: Record<string, unknown>): StatePurposeRow {
  return {
    subjectPseudonym: r.subject_pseudonym as string,
    purposeKey: r.purpose_key as string,
    decision: r.decision as StatePurposeRow['decision'],
    recordedAt: new Date(r.recorded_at as string | Date),
    eventId: r.event_id as string,
    configVersion: Number(r.config_version),
    source: r.source as StatePurposeRow['source'],
    region: (r.region as string | null) ?? null,
    regionSource: (r.region_source as string | null) ?? null,
    regime: (r.regime as StatePurposeRow['regime']) ?? null,
    consentMaxAgeDays: Number(r.consent_max_age_days),
    ...(r.tc_string === undefined ? {} : { tcString: (r.tc_string as string | null) ?? null }),
  };
}

const STATE_FIELDS = sql.raw(`s.subject_pseudonym, s.purpose_key, s.decision, s.recorded_at, s.event_id,
  s.config_version, s.source, s.region, s.region_source, s.regime, c.consent_max_age_days`);

export const consentStateRepo = {
  /**
   * Per subject of `pseudonyms`, the TC string of its newest unpurged event on the channel that
   * carried one (docs/guides/tcf.md), computed from the evidence: a walk of the subjects' own events
   * (evidence_events_subject_idx), for the replay only; `read` has it from the state.
   */
  async newestTcStrings(
    db: Db,
    scope: EvidenceScope,
    channelId: string,
    pseudonyms: string[],
  ): Promise<Map<string, string>> {
    const result = await readQuery(
      db,
      sql`
      select distinct on (e.subject_pseudonym) e.subject_pseudonym, e.tc_string
      from evidence_events e
      where e.organization_id = ${scope.organizationId} and e.environment = ${scope.environment}
        and e.channel_id = ${channelId} and e.tc_string is not null
        and e.subject_pseudonym = any(${sql.param(pseudonyms)}::text[])
      order by e.subject_pseudonym, e.seq desc`,
    );
    return new Map(rowsOf(result).map((r) => [r.subject_pseudonym as string, r.tc_string as string]));
  },

  /**
   * The TC string of one event of a subject, with the Google Additional Consent string made with it
   * (each null: it carried none, or was purged): the strings of an account's newest decision
   * (docs/guides/signed-in-visitors.md). One indexed read
   * (evidence_events_subject_idx: the subject's own events; recorded_at is not matched, since the
   * state keeps it at millisecond precision).
   */
  async tcStringOfEvent(
    db: Db,
    scope: EvidenceScope,
    channelId: string,
    pseudonym: string,
    event: { eventId: string },
  ): Promise<{ tcString: string | null; addtlConsent: string | null }> {
    const result = await readQuery(
      db,
      sql`
      select e.tc_string, e.tcf->>'addtlConsent' as addtl_consent from evidence_events e
      where e.organization_id = ${scope.organizationId} and e.environment = ${scope.environment}
        and e.subject_pseudonym = ${pseudonym} and e.id = ${event.eventId} and e.channel_id = ${channelId}`,
    );
    const row = rowsOf(result)[0];
    return {
      tcString: (row?.tc_string as string | null | undefined) ?? null,
      addtlConsent: (row?.addtl_consent as string | null | undefined) ?? null,
    };
  },

  /**
   * The state rows of `pseudonyms` on a channel of the scope, each with its subject's TC string: one
   * read by primary keys (consent_state's, and consent_state_tc_strings', which has rows on TCF
   * channels only).
   */
  async read(
    db: Db,
    scope: EvidenceScope,
    channelId: string,
    pseudonyms: string[],
  ): Promise<StatePurposeRow[]> {
    const result = await readQuery(
      db,
      sql`
      select ${STATE_FIELDS}, t.tc_string
      from consent_state s
      join ${channels} c on c.organization_id = s.organization_id and c.id = s.channel_id
      left join consent_state_tc_strings t on t.organization_id = s.organization_id
        and t.channel_id = s.channel_id and t.subject_pseudonym = s.subject_pseudonym
      where s.organization_id = ${scope.organizationId} and s.channel_id = ${channelId}
        and s.environment = ${scope.environment}
        and s.subject_pseudonym = any(${sql.param(pseudonyms)}::text[])`,
    );
    return rowsOf(result).map(purposeRow);
  },

  /**
   * The same rows computed from the evidence itself (a replay): used only until the backfill of
   * events older than the state table is done, so answers are right from the first minute.
   */
  async replay(
    db: Db,
    scope: EvidenceScope,
    channelId: string,
    pseudonyms: string[],
  ): Promise<StatePurposeRow[]> {
    const result = await readQuery(
      db,
      sql`
      with subject_events as (
        select * from evidence_events
        where organization_id = ${scope.organizationId} and environment = ${scope.environment}
          and subject_pseudonym = any(${sql.param(pseudonyms)}::text[])
          and channel_id = ${channelId} and purged_at is null
      ),
      ${sql.raw(stateInputCte('subject_events'))}
      select ${STATE_FIELDS}
      from state_input s
      join ${channels} c on c.organization_id = s.organization_id and c.id = s.channel_id`,
    );
    return rowsOf(result).map(purposeRow);
  },

  /**
   * After a purge batch (same transaction): the state rows that pointed at a purged event fall back
   * to the newest remaining decision of that purpose, or go when none is left.
   */
  async rebuildAfterPurge(tx: Tx, purged: PurgedEvent[]): Promise<void> {
    if (purged.length === 0) return;
    await rebuildTcStringsAfterPurge(tx, purged);
    const gone = rowsOf(
      await tx.execute(sql`
        delete from consent_state s
        using unnest(${sql.param(purged.map((p) => p.organizationId))}::text[],
          ${sql.param(purged.map((p) => p.channelId))}::text[],
          ${sql.param(purged.map((p) => p.subjectPseudonym))}::text[],
          ${sql.param(purged.map((p) => p.id))}::text[]) as v(organization_id, channel_id, subject_pseudonym, event_id)
        where s.organization_id = v.organization_id and s.channel_id = v.channel_id
          and s.subject_pseudonym = v.subject_pseudonym and s.event_id = v.event_id
        returning s.organization_id, s.environment, s.channel_id, s.subject_pseudonym, s.purpose_key`),
    );
    if (gone.length === 0) return;
    const column = (name: string) => sql.param(gone.map((g) => g[name] as string));
    // Each remaining event of those subjects, narrowed to the purpose that lost its state row.
    await tx.execute(sql`
      with gone as (
        select * from unnest(${column('organization_id')}::text[], ${column('environment')}::text[],
          ${column('channel_id')}::text[], ${column('subject_pseudonym')}::text[], ${column('purpose_key')}::text[])
          as g(organization_id, environment, channel_id, subject_pseudonym, purpose_key)
      ),
      remaining as (
        select e.organization_id, e.environment, e.channel_id, e.subject_pseudonym, e.recorded_at, e.id,
          e.seq, e.config_version, e.source, e.region, e.region_source, e.regime,
          jsonb_build_object(g.purpose_key, e.decisions -> g.purpose_key) as decisions
        from gone g
        join evidence_events e on e.organization_id = g.organization_id and e.environment = g.environment
          and e.subject_pseudonym = g.subject_pseudonym and e.channel_id = g.channel_id
        where e.purged_at is null and e.decisions ? g.purpose_key
      ),
      ${sql.raw(consentStateCtes('remaining', { tcStrings: false }))}
      select count(*) as n from state_upsert`);
  },

  /**
   * One batch of the backfill (migration 0019): the next `batch` unpurged events in primary-key
   * order laid over the state, and the progress row moved past them, in one transaction. Their rows
   * are share-locked so a concurrent purge waits rather than empties one we are about to count.
   * Returns how many events it took; fewer than `batch` means it is done.
   */
  async backfillBatch(tx: Tx, batch: number): Promise<{ events: number; done: boolean }> {
    const progress = rowsOf(
      await tx.execute(sql`select after_organization_id, after_id, done_at from consent_state_backfill
        where id = 1 for update`),
    )[0];
    if (!progress || progress.done_at) return { events: 0, done: true };
    const after =
      progress.after_id === null
        ? sql``
        : sql`and (organization_id, id) > (${progress.after_organization_id as string}, ${progress.after_id as string})`;
    const last = rowsOf(
      await tx.execute(sql`
        with batch as materialized (
          select * from evidence_events where purged_at is null ${after}
          order by organization_id, id limit ${batch} for share
        ),
        ${sql.raw(consentStateCtes('batch'))}
        select organization_id, id, count(*) over () as n, (select count(*) from state_upsert) as upserted
        from batch order by organization_id desc, id desc limit 1`),
    )[0];
    const events = last ? Number(last.n) : 0;
    const done = events < batch;
    await tx.execute(sql`
      update consent_state_backfill set
        after_organization_id = coalesce(${(last?.organization_id as string) ?? null}, after_organization_id),
        after_id = coalesce(${(last?.id as string) ?? null}, after_id),
        events = events + ${events},
        started_at = coalesce(started_at, now()),
        done_at = ${done ? sql`now()` : sql`null`}
      where id = 1`);
    return { events, done };
  },

  /** Whether the backfill has finished (then the state table alone answers). */
  async backfillDone(db: Db): Promise<boolean> {
    const row = rowsOf(await readQuery(db, sql`select done_at from consent_state_backfill where id = 1`))[0];
    return !row || row.done_at !== null;
  },
};

/**
 * After a purge batch: the TC strings that came from a purged event fall back to the newest
 * remaining event of the subject that carries one, or go when none is left.
 */
async function rebuildTcStringsAfterPurge(tx: Tx, purged: PurgedEvent[]): Promise<void> {
  const param = (pick: (p: PurgedEvent) => string) => sql.param(purged.map(pick));
  const gone = rowsOf(
    await tx.execute(sql`
      delete from consent_state_tc_strings t
      using unnest(${param((p) => p.organizationId)}::text[], ${param((p) => p.channelId)}::text[],
        ${param((p) => p.subjectPseudonym)}::text[], ${param((p) => p.id)}::text[])
        as v(organization_id, channel_id, subject_pseudonym, event_id)
      where t.organization_id = v.organization_id and t.channel_id = v.channel_id
        and t.subject_pseudonym = v.subject_pseudonym and t.event_id = v.event_id
      returning t.organization_id, t.environment, t.channel_id, t.subject_pseudonym`),
  );
  if (gone.length === 0) return;
  const column = (name: string) => sql.param(gone.map((g) => g[name] as string));
  await tx.execute(sql`
    with remaining as (
      select distinct on (e.organization_id, e.channel_id, e.subject_pseudonym)
        e.organization_id, e.environment, e.channel_id, e.subject_pseudonym, e.tc_string,
        e.id as event_id, e.seq as event_seq
      from unnest(${column('organization_id')}::text[], ${column('environment')}::text[],
        ${column('channel_id')}::text[], ${column('subject_pseudonym')}::text[])
        as g(organization_id, environment, channel_id, subject_pseudonym)
      join evidence_events e on e.organization_id = g.organization_id and e.environment = g.environment
        and e.subject_pseudonym = g.subject_pseudonym and e.channel_id = g.channel_id
      where e.purged_at is null and e.tc_string is not null
      order by e.organization_id, e.channel_id, e.subject_pseudonym, e.seq desc
    )
    ${sql.raw(tcStringUpsert('remaining'))}`);
}
