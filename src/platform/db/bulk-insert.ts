import { type Column, getTableColumns, type SQLChunk, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './store.ts';

/** A column's value as the text PostgreSQL casts back to the column's type (null stays NULL). */
function asText(column: Column, value: unknown): string | null {
  if (value === null) return null;
  const driverValue = column.mapToDriverValue(value);
  return typeof driverValue === 'string' ? driverValue : String(driverValue);
}

/**
 * Inserts `rows` in one statement whatever their number: each column travels as one text array,
 * `insert into t (a, b) select u.c0::type, u.c1::type from unnest($1::text[], $2::text[]) u(c0, c1)`.
 *
 * Why not drizzle's `insert(t).values(rows)`: it binds one parameter per value and walks each
 * through its query builder, which for the consent write's batches (up to 128 events of 17
 * columns, plus their outbox events) took a fifth of the service's CPU (bench b profile). Here a
 * value costs its column's own driver mapping (jsonb → JSON text, timestamp → ISO 8601) and a
 * cast; both drivers (pg, PGlite) see plain text arrays.
 *
 * Every row must give every column the first row gives (no per-row defaults, unlike drizzle).
 */
export async function insertRows<T extends PgTable>(db: Db, table: T, rows: T['$inferInsert'][]) {
  if (rows.length === 0) return;
  const byKey = rows as Array<Record<string, unknown>>;
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>).filter(
    ([key]) => byKey[0][key] !== undefined,
  );
  for (const row of byKey)
    for (const [key] of columns)
      if (row[key] === undefined) throw new Error(`insertRows: a row of ${key} lacks a value`);
  const names = columns.map(([, column]) => sql.identifier(column.name));
  const arrays = columns.map(
    ([key, column]) => sql`${sql.param(byKey.map((row) => asText(column, row[key])))}::text[]`,
  );
  const casts = columns.map(([, column], i) => sql.raw(`u.c${i}::${column.getSQLType()}`));
  const aliases = sql.raw(columns.map((_, i) => `c${i}`).join(', '));
  const list = (parts: SQLChunk[]) => sql.join(parts, sql`, `);
  await db.execute(
    sql`insert into ${table} (${list(names)}) select ${list(casts)} from unnest(${list(arrays)}) as u(${aliases})`,
  );
}
