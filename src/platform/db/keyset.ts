import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

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
