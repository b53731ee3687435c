/**
 * The rows of a `db.execute(sql…)` result. Both drivers (pg and PGlite) answer `{ rows }`, but
 * drizzle types `execute` per driver, and the store's `Db` is either.
 */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] => (result as { rows: T[] }).rows;
