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

/**
 * Names a page of entries: one query per lookup on the page, never one per entry. A lookup that
 * serves several uses (a member's email is the actor's name, its email and a target's name) is
 * asked once, for all the ids it serves.
 */
export async function withNames(
  db: Db,
  organizationId: string,
  rows: AuditRow[],
  lookups: AuditNameLookups,
): Promise<NamedAuditRow[]> {
  const lookupOf = (what: keyof AuditNameLookups, kind: string | null) =>
    kind === null ? undefined : lookups[what][kind];
  const wanted = new Map<NameLookup, Set<string>>();
  const want = (what: keyof AuditNameLookups, kind: string | null, id: string | null) => {
    const lookup = lookupOf(what, kind);
    if (!lookup || id === null) return;
    wanted.set(lookup, (wanted.get(lookup) ?? new Set<string>()).add(id));
  };
  for (const row of rows) {
    want('name', row.actorType, row.actorId);
    want('email', row.actorType, row.actorId);
    want('name', row.targetType, row.targetId);
  }
  const found = new Map<NameLookup, Map<string, string>>();
  await Promise.all(
    [...wanted].map(async ([lookup, ids]) => found.set(lookup, await lookup(db, organizationId, [...ids]))),
  );
  const get = (what: keyof AuditNameLookups, kind: string | null, id: string | null) => {
    const lookup = lookupOf(what, kind);
    return (lookup && id !== null && found.get(lookup)?.get(id)) || null;
  };
  return rows.map((row) => ({
    ...row,
    actorName: get('name', row.actorType, row.actorId),
    actorEmail: get('email', row.actorType, row.actorId),
    targetName: get('name', row.targetType, row.targetId),
  }));
}
