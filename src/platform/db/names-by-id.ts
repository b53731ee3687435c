import { and, eq, inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './store.ts';

/**
 * How a page of ids of one kind gets its readable names (an API key's name, a member's email):
 * one query for the page, and only within the organization, so no id of another tenant ever
 * yields a name. An id with no row (a resource deleted since) is absent from the map.
 */
export type NameLookup = (db: Db, organizationId: string, ids: string[]) => Promise<Map<string, string>>;

/** A NameLookup over a table keyed by (organization, id), reading one text column as the name. */
export function namesById(columns: {
  table: PgTable;
  organizationId: PgColumn;
  id: PgColumn;
  name: PgColumn;
}): NameLookup {
  return async (db, organizationId, ids) => {
    if (ids.length === 0) return new Map();
    const rows = await db
      .select({ id: columns.id, name: columns.name })
      .from(columns.table)
      .where(and(eq(columns.organizationId, organizationId), inArray(columns.id, ids)));
    return new Map(rows.map((r) => [String(r.id), String(r.name)]));
  };
}
