import type { NameLookup } from '../../platform/db/names-by-id.ts';
import type { Db } from '../../platform/db/store.ts';
import type { AuditRow } from './audit.repo.ts';

/**
 * How the log shows who and what by what people know them as, each looked up by its owning module:
 * `name` by kind of id (a member's email, an API key's or a channel's name, a webhook destination's
 * URL), `email` by kind of actor (a member's own, an API key's member's). Kinds without one (a
 * route, an export, the system) show their id alone.
 */
export interface AuditNameLookups {
  name: Partial<Record<string, NameLookup>>;
  email: Partial<Record<string, NameLookup>>;
}

/** An entry with its names: each null for a kind without one, or a resource deleted since. */
export type NamedAuditRow = AuditRow & {
  actorName: string | null;
  actorEmail: string | null;
  targetName: string | null;
};

/** Names a page of entries: one query per lookup and kind of id on the page, never one per entry. */
export async function withNames(
  db: Db,
  organizationId: string,
  rows: AuditRow[],
  lookups: AuditNameLookups,
): Promise<NamedAuditRow[]> {
  const wanted = new Map<string, { lookup: NameLookup; ids: Set<string> }>();
  const want = (what: keyof AuditNameLookups, kind: string | null, id: string | null) => {
    const lookup = kind === null ? undefined : lookups[what][kind];
    if (kind === null || id === null || !lookup) return;
    const key = `${what} ${kind}`;
    const entry = wanted.get(key) ?? { lookup, ids: new Set<string>() };
    entry.ids.add(id);
    wanted.set(key, entry);
  };
  for (const row of rows) {
    want('name', row.actorType, row.actorId);
    want('email', row.actorType, row.actorId);
    want('name', row.targetType, row.targetId);
  }
  const found = new Map<string, string>();
  await Promise.all(
    [...wanted].map(async ([key, { lookup, ids }]) => {
      for (const [id, name] of await lookup(db, organizationId, [...ids])) found.set(`${key} ${id}`, name);
    }),
  );
  const get = (what: keyof AuditNameLookups, kind: string | null, id: string | null) =>
    found.get(`${what} ${kind} ${id}`) ?? null;
  return rows.map((row) => ({
    ...row,
    actorName: get('name', row.actorType, row.actorId),
    actorEmail: get('email', row.actorType, row.actorId),
    targetName: get('name', row.targetType, row.targetId),
  }));
}
