import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createEmbeddedStore, createPostgresStore, type Store } from '../../src/platform/db/store.ts';

/**
 * The migrated stores every test file starts from, made once per run (lazy-resources-global.ts
 * makes each the first time a file asks): on the embedded store a dumped data directory
 * (embedded-instances.ts starts PGlite from it and resets an instance to it between files: a fresh
 * PGlite costs a second of CPU), on PostgreSQL a template database each file clones
 * (per-file-database.ts). Files share nothing, as in production two organizations share nothing,
 * except that the service's global jobs (retention, sealing) run on a file's own clock without
 * touching another file's data.
 */

/** A PostgreSQL run's database names: the template, and the prefix of each file's own database. */
export interface PostgresRun {
  adminUrl: string;
  template: string;
  prefix: string;
}

/** Names unique to this run, so two runs against one server never touch each other's databases. */
export function postgresRunNames(adminUrl: string | undefined): PostgresRun | null {
  if (!adminUrl) return null;
  const run = `${new URL(adminUrl).pathname.slice(1)}_${randomBytes(3).toString('hex')}`;
  return { adminUrl, template: `${run}_tpl`, prefix: `${run}_f_` };
}

/** Creates and migrates the template database; the function it returns drops it and every file's clone. */
export async function makePostgresTemplate(run: PostgresRun): Promise<() => Promise<void>> {
  const admin = createPostgresStore(run.adminUrl, { max: 1 });
  await admin.pool!.query(`create database "${run.template}"`);
  const templateStore = createPostgresStore(withDatabase(run.adminUrl, run.template));
  await runMigrations(templateStore);
  await templateStore.close();
  return async () => {
    await dropDatabases(admin, `${run.prefix}%`);
    await admin.pool!.query(`drop database if exists "${run.template}" with (force)`);
    await admin.close();
  };
}

/** Migrates an embedded store and dumps its data directory to a file; `remove` deletes the file. */
export async function makePgliteTemplate(): Promise<{ file: string; remove: () => void }> {
  const store = await createEmbeddedStore();
  await runMigrations(store);
  // Uncompressed: every embedded test file loads it, and gunzipping 43 MB cost each about 0.3
  // CPU-seconds of its 1.6 to open the store.
  const dump = await store.pglite!.dumpDataDir('none');
  await store.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-service-test-'));
  const file = path.join(dir, 'template.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function dropDatabases(admin: Store, pattern: string) {
  const { rows } = await admin.pool!.query('select datname from pg_database where datname like $1', [
    pattern,
  ]);
  for (const { datname } of rows)
    await admin.pool!.query(`drop database if exists "${datname}" with (force)`);
}
