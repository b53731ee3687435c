import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { CursorPosition } from './keyset.ts';
import type { Db } from './store.ts';

/**
 * Prepared statements for the hottest reads. Building a query with drizzle's builder costs about
 * as much CPU as sending it (measured on `GET /v1/channels`), and PostgreSQL parses and plans an
 * unnamed statement every time. A prepared query is built once per database handle and shape and
 * runs as a named statement, parsed and planned once per pooled connection.
 *
 * `build(db, name, variant)` returns `query.prepare(name)` (or `prepare(UNNAMED)`) for the shape
 * `variant` names; the name is `${prefix}_${variant}`, so each shape gets its own statement.
 * Handles are held weakly: a transaction's handle (rarely used by these reads) gets its own
 * queries, dropped with it.
 *
 * Named statements live in the server session: behind a PgBouncer in transaction pooling mode
 * (before 1.21) they would need `max_prepared_statements`.
 */
export function preparedQueries<Q>(prefix: string, build: (db: Db, name: string, variant: string) => Q) {
  const byDb = new WeakMap<Db, Map<string, Q>>();
  return (db: Db, variant = 'default'): Q => {
    let variants = byDb.get(db);
    if (!variants) {
      variants = new Map();
      byDb.set(db, variants);
    }
    let query = variants.get(variant);
    if (!query) {
      query = build(db, `${prefix}_${variant}`, variant);
      variants.set(variant, query);
    }
    return query;
  };
}

/**
 * The name for a query built once but sent as an unnamed statement, which PostgreSQL plans on every
 * run with the actual values. For shapes whose best plan depends on the values (a filter on a
 * column with skewed data), where a named statement would settle on one generic plan for all.
 */
export const UNNAMED = '';

/** Placeholder names of `olderThanPlaceholder`; fill them with `keysetValues(after)`. */
export interface KeysetValues {
  afterTime: string;
  afterId: string;
}

/** `olderThan` (keyset.ts) with placeholders, for prepared queries: rows strictly after the position. */
export function olderThanPlaceholder(time: PgColumn, id: PgColumn): SQL {
  return sql`(${time}, ${id}) < (${sql.placeholder('afterTime')}::timestamptz, ${sql.placeholder('afterId')})`;
}

export function keysetValues(after: CursorPosition): KeysetValues {
  return { afterTime: new Date(after.t).toISOString(), afterId: after.id };
}
