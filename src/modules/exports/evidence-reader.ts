import { and, asc, eq, gte, isNull, lte, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Db } from '../../platform/db/store.ts';
import { type EvidenceRow, evidenceEvents } from '../evidence/evidence.tables.ts';

/** Which events an export holds: one tenant, optionally one channel, recordedAt within [from, to]. */
export interface ExportSelection {
  organizationId: string;
  environment: Environment;
  channelId: string | null;
  from: Date | null;
  /** Inclusive; always set, so the file is a fixed snapshot even while new events arrive. */
  to: Date;
}

/** Rows per query: large enough to amortize a round trip, small enough that memory stays flat. */
export const EXPORT_BATCH_ROWS = 5000;

const e = evidenceEvents;

/**
 * The selected events, oldest first (recordedAt, then id: the ledger's order), in keyset batches.
 * Each batch is its own short query, so nothing holds a snapshot or a session for the whole export
 * and it runs unchanged on PGlite and PostgreSQL. The row-value comparison lets the planner seek
 * the (organization, environment[, channel], recorded_at, id) index rather than rescan from the
 * start, so a million rows cost 200 index seeks. Purged events (content gone) are skipped.
 *
 * This reads the evidence table directly (read-only) instead of through the evidence service,
 * because its paged list is newest-first with an OR-form keyset that does not seek an index.
 */
export async function* evidenceBatches(
  db: Db,
  selection: ExportSelection,
  options: {
    batchRows?: number;
    /** Runs each batch's query as a turn of the organization's heavy reads (the store's heavyReads). */
    turn?: <T>(read: () => Promise<T>) => Promise<T>;
  } = {},
): AsyncGenerator<EvidenceRow[]> {
  const batchRows = options.batchRows ?? EXPORT_BATCH_ROWS;
  const turn = options.turn ?? ((read) => read());
  let after: { recordedAt: Date; id: string } | null = null;
  for (;;) {
    const rows: EvidenceRow[] = await turn(() => batch(db, selection, batchRows, after));
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchRows) return;
    const last = rows[rows.length - 1];
    after = { recordedAt: last.recordedAt, id: last.id };
  }
}

/** One keyset batch of evidenceBatches: the rows after `after`, oldest first. */
function batch(
  db: Db,
  selection: ExportSelection,
  batchRows: number,
  after: { recordedAt: Date; id: string } | null,
): Promise<EvidenceRow[]> {
  return db
    .select()
    .from(e)
    .where(
      and(
        eq(e.organizationId, selection.organizationId),
        eq(e.environment, selection.environment),
        selection.channelId === null ? undefined : eq(e.channelId, selection.channelId),
        selection.from === null ? undefined : gte(e.recordedAt, selection.from),
        lte(e.recordedAt, selection.to),
        isNull(e.purgedAt),
        after === null
          ? undefined
          : sql`(${e.recordedAt}, ${e.id}) > (${after.recordedAt.toISOString()}::timestamptz, ${after.id})`,
      ),
    )
    .orderBy(asc(e.recordedAt), asc(e.id))
    .limit(batchRows);
}
