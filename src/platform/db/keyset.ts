import { and, desc, type InferSelectModel, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './store.ts';

/** Where a keyset page ended: the sort timestamp (ms) and id of its last row. */
export interface CursorPosition {
  t: number;
  id: string;
}

/**
 * Keyset condition for "newest first, then id": rows strictly after the given position.
 *
 * Written as a row comparison, `(time, id) < (t, id)`, rather than the equivalent
 * `time < t or (time = t and id < id)`: PostgreSQL turns the row comparison into an index bound on
 * a (…, time, id) btree, so page N costs one seek. The OR form is only a filter, so the scan starts
 * from the newest row every time and page N reads N × limit rows (13 ms instead of 0.2 ms at the
 * 300th evidence page of 1 M events).
 */
export function olderThan(time: PgColumn, id: PgColumn, after: CursorPosition | null): SQL | undefined {
  if (!after) return undefined;
  return sql`(${time}, ${id}) < (${new Date(after.t).toISOString()}::timestamptz, ${after.id})`;
}

/** A table listed by keyset: its rows have an id, which breaks ties of the sort time. */
type KeysetTable = PgTable & { id: PgColumn };

/** One page of a keyset list, newest first: which rows, where it starts and how long it is. */
export type KeysetPage<T extends KeysetTable> = {
  /** The list's conditions (undefined ones are left out). */
  where: (SQL | undefined)[];
  limit: number;
  after: CursorPosition | null;
} & (T extends { createdAt: PgColumn }
  ? { /** The sort time column, by default the creation time. */ time?: PgColumn }
  : { time: PgColumn });

/**
 * The rows of a keyset-paged list: those of `table` matching `where`, newest first (time, then id),
 * strictly after `after`, `limit + 1` of them so the caller can tell whether a next page exists.
 */
export function keysetList<T extends KeysetTable>(
  db: Db,
  table: T,
  page: KeysetPage<T>,
): Promise<InferSelectModel<T>[]> {
  const time = page.time ?? (table as unknown as { createdAt: PgColumn }).createdAt;
  return db
    .select()
    .from(table as PgTable)
    .where(and(...page.where, olderThan(time, table.id, page.after)))
    .orderBy(desc(time), desc(table.id))
    .limit(page.limit + 1) as unknown as Promise<InferSelectModel<T>[]>;
}
