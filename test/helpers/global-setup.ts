import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createEmbeddedStore, createPostgresStore, type Store } from '../../src/platform/db/store.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    /** PostgreSQL runs: the migrated template database every test file clones (see per-file-database.ts). */
    postgresTemplate: { adminUrl: string; template: string; prefix: string } | null;
  }
}

/**
 * Migrates once for the whole run, so that every test file starts from its own migrated database:
 * on the embedded store a dumped data directory (embedded-instances.ts starts PGlite from it and
 * resets an instance to it between files: a fresh PGlite costs a second of CPU), on PostgreSQL a
 * template database each file clones. Files share nothing, as in production two organizations
 * share nothing, except that the service's global jobs (retention, sealing) run on a file's own
 * clock without touching another file's data.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL;
    // Names unique to this run, so two runs against one server never touch each other's databases.
    const run = `${new URL(adminUrl).pathname.slice(1)}_${randomBytes(3).toString('hex')}`;
    const template = `${run}_tpl`;
    const prefix = `${run}_f_`;
    const admin = createPostgresStore(adminUrl, { max: 1 });
    await admin.pool!.query(`create database "${template}"`);
    const templateStore = createPostgresStore(withDatabase(adminUrl, template));
    await runMigrations(templateStore);
    await templateStore.close();
    project.provide('pgliteTemplate', '');
    project.provide('postgresTemplate', { adminUrl, template, prefix });
    return async () => {
      await dropDatabases(admin, `${prefix}%`);
      await admin.pool!.query(`drop database if exists "${template}" with (force)`);
      await admin.close();
    };
  }
  project.provide('postgresTemplate', null);
  const store = await createEmbeddedStore();
  await runMigrations(store);
  // Uncompressed: every embedded test file loads it, and gunzipping 43 MB cost each about 0.3
  // CPU-seconds of its 1.6 to open the store.
  const dump = await store.pglite!.dumpDataDir('none');
  await store.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-service-test-'));
  const file = path.join(dir, 'template.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
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
