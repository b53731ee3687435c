import { and, desc, eq, gte, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { olderThan } from '../../platform/db/keyset.ts';
import type { Db } from '../../platform/db/store.ts';
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
} as const;

const rowsOf = (result: unknown) => (result as { rows: Array<Record<string, unknown>> }).rows;

export const evidenceRepo = {
  async insertMany(tx: Db, rows: EvidenceRow[]): Promise<void> {
    if (rows.length > 0) await tx.insert(e).values(rows);
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

  /** Newest first (recordedAt, then id), limit + 1 rows; purged events never appear. */
  list(
    db: Db,
    scope: EvidenceScope,
    filters: EvidenceFilters,
    limit: number,
    after: { t: number; id: string } | null,
  ): Promise<EvidenceRow[]> {
    const decided: SQL | undefined = filters.purpose
      ? filters.decision
        ? sql`${e.decisions} ->> ${filters.purpose} = ${filters.decision}`
        : sql`${e.decisions} ->> ${filters.purpose} is not null`
      : undefined;
    return db
      .select()
      .from(e)
      .where(
        and(
          eq(e.organizationId, scope.organizationId),
          eq(e.environment, scope.environment),
          filters.channelId ? eq(e.channelId, filters.channelId) : undefined,
          filters.subjectPseudonym ? eq(e.subjectPseudonym, filters.subjectPseudonym) : undefined,
          filters.source ? eq(e.source, filters.source) : undefined,
          filters.from ? gte(e.recordedAt, filters.from) : undefined,
          filters.to ? lte(e.recordedAt, filters.to) : undefined,
          decided,
          isNull(e.purgedAt),
          olderThan(e.recordedAt, e.id, after),
        ),
      )
      .orderBy(desc(e.recordedAt), desc(e.id))
      .limit(limit + 1);
  },

  /**
   * Purges up to `batch` test events recorded before `cutoff`, oldest first. SKIP LOCKED lets two
   * workers share the work; the batch bounds how long the rows stay locked.
   */
  async purgeTestBatch(tx: Db, cutoff: Date, now: Date, batch: number): Promise<number> {
    const result = await tx.execute(sql`
      update ${e} set ${purgeAssignments(now)}
      where (organization_id, id) in (
        select organization_id, id from ${e}
        where environment = 'test' and purged_at is null and recorded_at < ${cutoff.toISOString()}::timestamptz
        order by recorded_at
        limit ${batch}
        for update skip locked)
      returning id`);
    return rowsOf(result).length;
  },

  /**
   * Purges up to `batch` live events older than their channel's retentionDays (read at purge time,
   * so shortening a channel's retention purges its older events on the next run). `minCutoff`
   * (now minus the smallest retention, one day) keeps the scan to events that could qualify.
   */
  async purgeLiveBatch(tx: Db, now: Date, minCutoff: Date, batch: number): Promise<number> {
    const result = await tx.execute(sql`
      update ${e} set ${purgeAssignments(now)}
      where (organization_id, id) in (
        select ev.organization_id, ev.id from ${e} ev
        join channels c on c.organization_id = ev.organization_id and c.id = ev.channel_id
        where ev.environment = 'live' and ev.purged_at is null and ev.recorded_at < ${minCutoff.toISOString()}::timestamptz
          and ev.recorded_at < ${now.toISOString()}::timestamptz - make_interval(days => c.retention_days)
        order by ev.recorded_at
        limit ${batch}
        for update of ev skip locked)
      returning id`);
    return rowsOf(result).length;
  },
};

function purgeAssignments(now: Date): SQL {
  const columns = Object.keys(PURGED_CONTENT).map((key) => {
    const column = e[key as keyof typeof PURGED_CONTENT];
    return sql`${sql.identifier(column.name)} = null`;
  });
  return sql.join([...columns, sql`purged_at = ${now.toISOString()}::timestamptz`], sql`, `);
}
