import type { CursorCodec, CursorPosition } from './cursor.ts';
import { page } from './schemas.ts';

export interface PagedListSpec<Row, Item> {
  /** The list's name, bound into its cursors (a cursor of another list is invalid_cursor). */
  list: string;
  /** The filters a cursor is bound to (a cursor used with other filters is invalid_cursor). */
  filters?: Record<string, unknown>;
  query: { limit?: number; cursor?: string };
  /** Fetches up to `limit + 1` rows after the position (null: from the start), newest first. */
  fetch: (limit: number, after: CursorPosition | null) => Promise<Row[]>;
  present: (row: Row) => Item;
  /** Where a page that ends at this row ends. Defaults to its creation time and id. */
  position?: (row: Row) => CursorPosition;
}

/** The default keyset position: creation time, then id. */
function createdAtPosition(row: unknown): CursorPosition {
  const { createdAt, id } = row as { createdAt: Date; id: string };
  return { t: createdAt.getTime(), id };
}

/**
 * One keyset-paged list answer: decodes the query's cursor, fetches a page plus one row, and
 * answers the list envelope with the signed cursor of the next page (or null).
 */
export async function pagedList<Row, Item>(cursors: CursorCodec, spec: PagedListSpec<Row, Item>) {
  const filters = spec.filters ?? {};
  const limit = spec.query.limit ?? 20;
  const after = cursors.decode(spec.list, filters, spec.query.cursor);
  const rows = await spec.fetch(limit, after);
  const position = spec.position ?? createdAtPosition;
  return page(rows, limit, spec.present, (row) => cursors.encode(spec.list, filters, position(row)));
}
