import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../src/platform/db/rows.ts';
import type { Store } from '../../src/platform/db/store.ts';
import { openTestStore, rawSql, startTestApp } from '../helpers/app.ts';
import { idleEmbeddedInstances } from '../helpers/embedded-instances.ts';
import { embeddedOnly, skipWith } from '../helpers/skip.ts';

/** Every row of every table of the service's schemas and every sequence's value, as one digest. */
async function contents(store: Store): Promise<string> {
  const tables = await readRows<{ name: string }>(
    store.db,
    sql`select format('%I.%I', n.nspname, c.relname) as name
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\_%'
           and c.relkind in ('r', 'p') and not c.relispartition
         order by 1`,
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const [{ digest }] = await readRows<{ digest: string }>(
      store.db,
      sql.raw(`select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as digest from ${name} t`),
    );
    parts.push(`${name}=${digest}`);
  }
  const sequences = await readRows(
    store.db,
    sql`select sequencename, last_value from pg_sequences order by 1`,
  );
  return JSON.stringify({ parts, sequences });
}

// PostgreSQL files clone a template database each instead (per-file-database.ts): nothing to reuse.
describe.skipIf(skipWith(embeddedOnly()))('embedded test stores handed from file to file', () => {
  it('a reused instance shows what a fresh one does: rows, sequences, session; the closed store fails', async () => {
    const first = await openTestStore();
    const fresh = await contents(first);
    const t = await startTestApp({ store: first });
    await t.tenant();
    await t.close();
    await rawSql(first).execute(sql`set statement_timeout = '7s'`);
    await rawSql(first).execute(
      sql`select nextval(format('%I.%I', schemaname, sequencename)::regclass) from pg_sequences`,
    );
    expect(await contents(first)).not.toBe(fresh);

    const idle = idleEmbeddedInstances();
    await first.close();
    expect(idleEmbeddedInstances()).toBe(idle + 1);
    await expect(first.pglite!.query('select 1')).rejects.toThrow('PGlite is closed');

    const second = await openTestStore();
    try {
      expect(idleEmbeddedInstances()).toBe(idle);
      expect(await contents(second)).toBe(fresh);
      expect(await readRows(second.db, sql`show statement_timeout`)).toEqual([{ statement_timeout: '0' }]);
    } finally {
      await second.close();
    }
  });

  it('an instance whose schema a file changed is closed, not handed on', async () => {
    const changed = await openTestStore();
    await rawSql(changed).execute(sql`create table leftover_of_a_file (id int)`);
    const idle = idleEmbeddedInstances();
    await changed.close();
    expect(idleEmbeddedInstances()).toBe(idle);

    const next = await openTestStore();
    try {
      expect(await readRows(next.db, sql`select to_regclass('leftover_of_a_file') as found`)).toEqual([
        { found: null },
      ]);
    } finally {
      await next.close();
    }
  });
});
