import { and, desc, eq, gte, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { insertRows } from '../../platform/db/bulk-insert.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import { keysetValues, olderThanPlaceholder, preparedQueries, UNNAMED } from '../../platform/db/prepared.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
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
  /** An app channel's events by the app that sent them (docs/guides/apps.md). */
  appId?: string;
  subjectPseudonym?: string;
}

const e = evidenceEvents;

/** The filters of a list, in the order they name its prepared statement. */
const FILTERS = [
  'channelId',
  'subjectPseudonym',
  'source',
  'region',
  'regime',
  'appId',
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
        // No index of its own: app ids are few per tenant, and a channelId filter narrows the walk.
        has.has('appId') ? sql`${e.app} ->> 'appId' = ${value('appId')}` : undefined,
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
};
