import type { SQL } from 'drizzle-orm';
import type { Db } from './store.ts';

/**
 * The rows of a `tx.execute(sql…)` result. Both drivers (pg and PGlite) answer `{ rows }`, but
 * drizzle types `execute` per driver, and the store's handles are either.
 */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * The rows of a raw SQL read on a read handle (the pool, a replica, or an open transaction). `Db`
 * has no `execute`, so a raw write on the pool does not compile; this is the one way to send raw
 * SQL through a `Db`, and it is for reads (SELECT, WITH … SELECT) only. A write takes a `Tx`.
 */
export async function readRows<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await readQuery(db, query));
}

/** `readRows`'s query, answering the driver's result (`{ rows }`, see rowsOf) rather than its rows. */
export function readQuery(db: Db, query: SQL): Promise<unknown> {
  return (db as unknown as { execute(query: SQL): Promise<unknown> }).execute(query);
}
