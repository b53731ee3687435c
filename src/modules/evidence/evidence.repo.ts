import { and, desc, eq, gte, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { insertRows } from '../../platform/db/bulk-insert.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import { keysetValues, olderThanPlaceholder, preparedQueries, UNNAMED } from '../../platform/db/prepared.ts';
import { readRows, rowsOf } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { channels } from '../channels/channels.tables.ts';
import { consentStateRepo } from './consent-state.repo.ts';
import { type Decision, type EvidenceRow, evidenceEvents } from './evidence.tables.ts';

export interface EvidenceScope {
  organizationId: string;
  environment: Environment;
}

/** Filters of `GET /v1/evidence`, the subject already pseudonymized. */
export interface EvidenceFilters {
  channelId?: string;
  from?: Date;
  to?: Date;
  purpose?: string;
  decision?: Decision;
  source?: NonNullable<EvidenceRow['source']>;
  /** A country matches itself and its subdivisions; a subdivision only itself. */
  region?: string;
  regime?: NonNullable<EvidenceRow['regime']>;
  subjectPseudonym?: string;
}

const e = evidenceEvents;

/** What a purge leaves of an event: the identity and receipt the ledger needs, nothing about the visitor. */
const PURGED_CONTENT = {
  subjectPseudonym: null,
  decisions: null,
  configVersion: null,
  policyVersion: null,
  source: null,
  language: null,
  gpc: null,
  origin: null,
  userAgent: null,
  ipPrefix: null,
  region: null,
  regionSource: null,
  regime: null,
  gppString: null,
  tcString: null,
  tcf: null,
  subjectKind: null,
  gpcHonoredShown: null,
  handoff: null,
  importedFrom: null,
  outcome: null,
  receiptTokenHash: null,
} as const;

/** The filters of a list, in the order they name its prepared statement. */
const FILTERS = [
  'channelId',
  'subjectPseudonym',
  'source',
  'region',
  'regime',
  'from',
  'to',
  'purpose',
  'decision',
] as const;

/**
 * One prepared query per combination of filters used (its variant name lists them). The unfiltered
 * page, the hot one, is a named statement; filtered ones stay unnamed so PostgreSQL plans them with
 * the actual values (a generic plan could pick the tenant-wide index for a rare channel's events).
 */
const listQuery = preparedQueries('evidence_list', (db, name, variant) => {
  const has = new Set(variant.split('_'));
  const value = (placeholder: string) => sql.placeholder(placeholder);
  const decided: SQL | undefined = has.has('purpose')
    ? has.has('decision')
      ? sql`${e.decisions} ->> ${value('purpose')} = ${value('decision')}`
      : sql`${e.decisions} ->> ${value('purpose')} is not null`
    : undefined;
  return db
    .select()
    .from(e)
    .where(
      and(
        eq(e.organizationId, value('organizationId')),
        eq(e.environment, value('environment')),
        has.has('channelId') ? eq(e.channelId, value('channelId')) : undefined,
        has.has('subjectPseudonym') ? eq(e.subjectPseudonym, value('subjectPseudonym')) : undefined,
        has.has('source') ? eq(e.source, value('source')) : undefined,
        // A subdivision code is longer than 2: then the LIKE branch is false and the planner drops it.
        has.has('region')
          ? sql`(${e.region} = ${value('region')} or (length(${value('region')}) = 2 and ${e.region} like ${value('region')} || '-%'))`
          : undefined,
        has.has('regime') ? eq(e.regime, value('regime')) : undefined,
        has.has('from') ? gte(e.recordedAt, value('from')) : undefined,
        has.has('to') ? lte(e.recordedAt, value('to')) : undefined,
        decided,
        isNull(e.purgedAt),
        has.has('after') ? olderThanPlaceholder(e.recordedAt, e.id) : undefined,
      ),
    )
    .orderBy(desc(e.recordedAt), desc(e.id))
    .limit(value('limit'))
    .prepare(variant === 'all' || variant === 'after' ? name : UNNAMED);
});

export const evidenceRepo = {
  /** The shortest retention (days) of any live channel; 1 when there is none. */
  async minLiveRetentionDays(db: Db): Promise<number> {
    const [row] = await readRows<{ d: number }>(
      db,
      sql`select coalesce(min(retention_days), 1) as d from ${channels} where environment = 'live'`,
    );
    return Number(row.d);
  },

  /**
   * Whether a channel with events in the live partition `partition` (the month ending at `upper`)
   * still keeps that month at `now`. The partition's channels are read with a skip scan of the
   * channel index (one probe per channel, not a walk of its events); a channel that keeps the month
   * longer, or an event whose channel row is missing, holds it back (partitions.ts).
   */
  async liveMonthHeld(db: Db, partition: string, upper: Date, now: Date): Promise<boolean> {
    const part = sql.identifier(partition);
    const [row] = await readRows<{ held: boolean }>(
      db,
      sql`
      with recursive used as (
        (select organization_id, channel_id from ${part} where environment = 'live'
          order by organization_id, environment, channel_id limit 1)
        union all
        select n.organization_id, n.channel_id from used u cross join lateral (
          select organization_id, channel_id from ${part}
          where environment = 'live' and (organization_id, environment, channel_id) > (u.organization_id, 'live', u.channel_id)
          order by organization_id, environment, channel_id limit 1) n
      )
      select exists (
        select 1 from used u
        left join ${channels} c on c.organization_id = u.organization_id and c.id = u.channel_id
        where c.id is null
          or ${upper.toISOString()}::timestamptz > ${now.toISOString()}::timestamptz - make_interval(days => c.retention_days)
      ) as held`,
    );
    return row.held === true;
  },

  insertMany(tx: Tx, rows: EvidenceRow[]): Promise<void> {
    return insertRows(tx, e, rows);
  },

  /** An event by its primary key, purged or not, in either environment (visitor receipts). */
  async findInOrganization(db: Db, organizationId: string, id: string): Promise<EvidenceRow | undefined> {
    const [row] = await db
      .select()
      .from(e)
      .where(and(eq(e.organizationId, organizationId), eq(e.id, id)));
    return row;
  },

  /** An event of the scope that has not been purged. */
  async find(db: Db, scope: EvidenceScope, id: string): Promise<EvidenceRow | undefined> {
    const [row] = await db
      .select()
      .from(e)
      .where(
        and(
          eq(e.organizationId, scope.organizationId),
          eq(e.environment, scope.environment),
          eq(e.id, id),
          isNull(e.purgedAt),
        ),
      );
    return row;
  },

  /**
   * A subject's newest unpurged event on a channel (the order the service recorded them in), by the
   * subject index; undefined when it has none.
   */
  async newestOfSubject(
    db: Db,
    scope: EvidenceScope,
    channelId: string,
    pseudonym: string,
  ): Promise<EvidenceRow | undefined> {
    const [row] = await db
      .select()
      .from(e)
      .where(
        and(
          eq(e.organizationId, scope.organizationId),
          eq(e.environment, scope.environment),
          eq(e.subjectPseudonym, pseudonym),
          eq(e.channelId, channelId),
          isNull(e.purgedAt),
        ),
      )
      .orderBy(desc(e.recordedAt), desc(e.seq))
      .limit(1);
    return row;
  },

  /** Newest first (recordedAt, then id), limit + 1 rows; purged events never appear. */
  list(
    db: Db,
    scope: EvidenceScope,
    filters: EvidenceFilters,
    limit: number,
    after: CursorPosition | null,
  ): Promise<EvidenceRow[]> {
    // A decision means something only for a purpose (the route refuses one alone).
    const used = FILTERS.filter((name) => filters[name] && (name !== 'decision' || filters.purpose));
    const variant = [...used, ...(after ? ['after'] : [])].join('_') || 'all';
    const values: Record<string, unknown> = {
      organizationId: scope.organizationId,
      environment: scope.environment,
      limit: limit + 1,
      ...(after ? keysetValues(after) : {}),
    };
    for (const name of used) values[name] = filters[name];
    return listQuery(db, variant).execute(values);
  },

  /**
   * Purges up to `batch` test events recorded before `cutoff`, oldest first, from the DEFAULT
   * partition only: the hourly partitions are dropped whole (partitions.ts), the one holding the
   * cutoff included once its hour is past it. SKIP LOCKED lets two workers share the work; the batch
   * bounds how long the rows stay locked.
   */
  async purgeTestBatch(tx: Tx, cutoff: Date, now: Date, batch: number): Promise<number> {
    return purgeTaken(
      tx,
      now,
      sql`
        select organization_id, environment, id, channel_id, subject_pseudonym from evidence_events_test_default
        where environment = 'test' and purged_at is null and recorded_at < ${cutoff.toISOString()}::timestamptz
        order by recorded_at
        limit ${batch}
        for update skip locked`,
    );
  },

  /**
   * Purges up to `batch` live events older than their channel's retentionDays (read at purge time,
   * so shortening a channel's retention purges its older events on the next run). Only events older
   * than the shortest retention of any live channel are walked: the months every channel has outlived
   * are dropped whole (partitions.ts), and this purges the rest of the channels that keep less.
   */
  async purgeLiveBatch(tx: Tx, now: Date, batch: number): Promise<number> {
    return purgeTaken(
      tx,
      now,
      sql`
        select ev.organization_id, ev.environment, ev.id, ev.channel_id, ev.subject_pseudonym from ${e} ev
        join ${channels} c on c.organization_id = ev.organization_id and c.id = ev.channel_id
        where ev.environment = 'live' and ev.purged_at is null
          and ev.recorded_at < ${now.toISOString()}::timestamptz - make_interval(days => (
            select coalesce(min(retention_days), 1) from ${channels} where environment = 'live'))
          and ev.recorded_at < ${now.toISOString()}::timestamptz - make_interval(days => c.retention_days)
        order by ev.recorded_at
        limit ${batch}
        for update of ev skip locked`,
    );
  },
};

/**
 * Empties the events `victims` selects (and locks), then lets the consent state forget them: its
 * rows that pointed at one fall back to the newest decision left. The victims' subjects are read
 * before the update nulls them. Returns how many events were purged.
 */
async function purgeTaken(tx: Tx, now: Date, victims: SQL): Promise<number> {
  const purged = rowsOf(
    await tx.execute(sql`
      with victims as materialized (${victims}),
      emptied as (
        update ${e} set ${purgeAssignments(now)}
        from victims v where ${e}.organization_id = v.organization_id and ${e}.id = v.id
        returning 1
      )
      -- emptied runs though nothing reads it: a data-modifying CTE always runs to completion.
      select v.* from victims v`),
  );
  await consentStateRepo.rebuildAfterPurge(
    tx,
    purged.map((r) => ({
      organizationId: r.organization_id as string,
      environment: r.environment as string,
      id: r.id as string,
      channelId: r.channel_id as string,
      subjectPseudonym: r.subject_pseudonym as string,
    })),
  );
  return purged.length;
}

function purgeAssignments(now: Date): SQL {
  const columns = Object.keys(PURGED_CONTENT).map((key) => {
    const column = e[key as keyof typeof PURGED_CONTENT];
    return sql`${sql.identifier(column.name)} = null`;
  });
  return sql.join([...columns, sql`purged_at = ${now.toISOString()}::timestamptz`], sql`, `);
}
