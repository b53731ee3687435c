import fs from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../src/platform/db/store.ts';

/**
 * The embedded store's PGlite instances of one test worker, handed from file to file.
 *
 * Some 170 files open an embedded store, and starting PGlite from the migrated template is most of
 * what opening one costs. Files run one after another in a worker process (vitest.config.ts:
 * isolate false), so an instance a file has closed is reset to the template's contents (about
 * 50 ms) and given to the next file instead. Measured on 36 files of the API's core (sites,
 * channels, consent, evidence, keys, audit, webhooks), same machine, alternating runs: 36.4 s ->
 * 24.6 s, 64 -> 42 CPU-seconds. A reset instance holds:
 *
 * - its rows: every table emptied, the rows the migrations insert put back, every sequence set
 *   back to where the template left it;
 * - its session: any open transaction rolled back, settings, prepared statements and advisory
 *   locks dropped (DISCARD ALL);
 * - its schema: compared with the template's (every relation, column count, function, trigger,
 *   constraint, type, role); a file that changed it (a migration test, a retention run that
 *   dropped a month's partition) has its instance closed and the next file gets a fresh one.
 *
 * A file sees what a fresh store shows, and a store it closed fails like a closed PGlite.
 */

/** What reset needs to know of the template, read once from the first instance of a worker. */
interface Template {
  schema: string;
  tables: string[];
  seeds: { table: string; columns: string; rows: string }[];
  sequences: { name: string; start: number; value: number | null }[];
}

interface Instances {
  idle: PGlite[];
  template?: Template;
}

// On globalThis, not a module variable: files share the worker's module cache (isolate false), but
// a shared variable should not depend on how the runner loads this module again.
const KEY = Symbol.for('consent-service.test.embedded-instances');
const shared = globalThis as Record<symbol, Instances | undefined>;
const instances: Instances = shared[KEY] ?? { idle: [] };
shared[KEY] = instances;

/** The schemas of the service's own data (not PostgreSQL's catalogs). */
const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`;

/** A digest of everything a file might change in the schema; rows and sequence values excluded. */
const SCHEMA_DIGEST = `
  select md5(string_agg(item, ',' order by item)) as digest from (
    select concat_ws(':', 'relation', c.oid, n.nspname, c.relname, c.relkind, c.relnatts) as item
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS}
    union all select concat_ws(':', 'function', p.oid, p.proname, md5(p.prosrc))
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMAS}
    union all select concat_ws(':', 'trigger', oid, tgname, tgenabled) from pg_trigger where not tgisinternal
    union all select concat_ws(':', 'constraint', oid, conname) from pg_constraint
      where connamespace in (select n.oid from pg_namespace n where ${USER_SCHEMAS})
    union all select concat_ws(':', 'type', t.oid, t.typname)
      from pg_type t join pg_namespace n on n.oid = t.typnamespace where ${USER_SCHEMAS}
    union all select concat_ws(':', 'role', oid, rolname) from pg_roles
    union all select concat_ws(':', 'setting', setdatabase, setrole, array_to_string(setconfig, ';'))
      from pg_db_role_setting
  ) items`;

/** Leases an instance holding the template's contents: a reset idle one, else a new one. */
export async function leaseEmbedded(
  templateFile: string,
): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  let pglite = instances.idle.pop();
  if (!pglite) {
    pglite = await openPglite({ loadDataDir: new Blob([fs.readFileSync(templateFile)]) });
    instances.template ??= await readTemplate(pglite);
  }
  const client = pglite;
  let released = false;
  const closed = () => Promise.reject(new Error('PGlite is closed'));
  // Closing the store releases the instance; after that its handles fail as a closed PGlite's do.
  const lease = new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (released) return closed;
      // Bound to the instance itself: PGlite's methods read private fields a proxy does not have.
      return value.bind(target);
    },
  });
  return {
    pglite: lease,
    release: async () => {
      if (released) return;
      released = true;
      if (await resetToTemplate(client)) instances.idle.push(client);
      // An instance that could not be reset is dropped; if it cannot even close, it is gone anyway.
      else await client.close().catch(() => {});
    },
  };
}

async function readTemplate(pglite: PGlite): Promise<Template> {
  const schema = await schemaDigest(pglite);
  const { rows: tables } = await pglite.query<{ name: string }>(`
    select format('%I.%I', n.nspname, c.relname) as name
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where ${USER_SCHEMAS} and c.relkind in ('r', 'p') and not c.relispartition
     order by 1`);
  const seeds: Template['seeds'] = [];
  for (const { name } of tables) {
    const { rows } = await pglite.query<{ rows: string | null }>(
      `select json_agg(t)::text as rows from ${name} t`,
    );
    if (!rows[0]?.rows) continue;
    // Generated columns take no value; identity ones are given theirs (OVERRIDING SYSTEM VALUE).
    const { rows: columns } = await pglite.query<{ column: string }>(
      `select quote_ident(attname) as column from pg_attribute
        where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = ''
        order by attnum`,
      [name],
    );
    seeds.push({ table: name, columns: columns.map((c) => c.column).join(', '), rows: rows[0].rows });
  }
  const { rows: sequences } = await pglite.query<Template['sequences'][number]>(`
    select format('%I.%I', schemaname, sequencename) as name, start_value as start, last_value as value
      from pg_sequences order by 1`);
  return { schema, tables: tables.map((t) => t.name), seeds, sequences };
}

/** True when the instance now holds the template's contents; false when it cannot (its schema changed). */
async function resetToTemplate(pglite: PGlite): Promise<boolean> {
  const template = instances.template;
  if (!template || pglite.closed) return false;
  try {
    // A transaction a failed test left open, then whatever the session set up.
    if (pglite.isInTransaction()) await pglite.exec('rollback');
    await pglite.exec('discard all');
    if ((await schemaDigest(pglite)) !== template.schema) return false;
    await pglite.transaction(async (tx) => {
      await tx.exec(`truncate ${template.tables.join(', ')} cascade`);
      for (const seed of template.seeds)
        await tx.query(
          `insert into ${seed.table} (${seed.columns}) overriding system value
           select ${seed.columns} from json_populate_recordset(null::${seed.table}, $1::json)`,
          [seed.rows],
        );
      // A sequence never used starts again at its start, its next value not yet taken.
      for (const sequence of template.sequences)
        await tx.query('select setval($1::regclass, $2::bigint, $3::boolean)', [
          sequence.name,
          sequence.value ?? sequence.start,
          sequence.value !== null,
        ]);
    });
    return true;
  } catch {
    return false;
  }
}

async function schemaDigest(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ digest: string }>(SCHEMA_DIGEST);
  return rows[0]!.digest;
}

/** How many reset instances wait for the next file (test/platform/embedded-instances.test.ts). */
export function idleEmbeddedInstances(): number {
  return instances.idle.length;
}
