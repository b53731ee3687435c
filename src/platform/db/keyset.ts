import { and, eq, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** Keyset condition for "newest first, then id": rows strictly after the given position. */
export function olderThan(
  time: PgColumn,
  id: PgColumn,
  after: { t: number; id: string } | null,
): SQL | undefined {
  if (!after) return undefined;
  const at = new Date(after.t);
  return or(lt(time, at), and(eq(time, at), lt(id, after.id)));
}
