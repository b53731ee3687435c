import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { protectDataDir, repairModes } from '../platform/db/data-dir.ts';
import { runMigrations } from '../platform/db/migrate.ts';
import { pgErrorOf } from '../platform/db/pg-errors.ts';
import { createEmbeddedStore, createPostgresStore, lockDataDir, type Store } from '../platform/db/store.ts';
import { createServices, type Services } from '../services.ts';
import { assertEmbeddedStoreExists, NoStoreError, storeLine } from './store-line.ts';

export interface Runtime {
  store: Store;
  services: Services;
  close(): Promise<void>;
}

/**
 * Opens the configured store and migrates it. The embedded store is locked to this process for
 * as long as it is open: a CLI command cannot open it while a server holds it (the CLI sends its
 * command to that server instead). `onLocked` runs once the lock is this process's, before the
 * (slow) opening of the store: the server opens its control socket there. `progress` hears what a
 * start is doing (opening or creating the embedded store, migrating it), which takes seconds.
 * `create: false` (the commands that only use a store): a missing embedded store, or a PostgreSQL
 * database with no tables, is a NoStoreError, and nothing is created, not even DATA_DIR.
 */
export async function openRuntime(
  config: Config,
  hooks: { onLocked?: () => Promise<void>; progress?: (message: string) => void; create?: boolean } = {},
): Promise<Runtime> {
  let unlock = () => {};
  let store: Store;
  const pgdata = path.join(config.dataDir, 'pgdata');
  const firstStart = !config.databaseUrl && !fs.existsSync(pgdata);
  if (hooks.create === false) assertEmbeddedStoreExists(config);
  if (config.databaseUrl) {
    // Export files live under DATA_DIR on PostgreSQL too: the same protection, on an existing one.
    protectDataDir(config.dataDir, { create: false });
    store = createPostgresStore(config.databaseUrl, { readUrl: config.databaseReadUrl });
    if (hooks.create === false) await assertPostgresStoreExists(store, config);
  } else {
    protectDataDir(config.dataDir);
    unlock = lockDataDir(config.dataDir);
    try {
      await hooks.onLocked?.();
      hooks.progress?.(
        firstStart
          ? `creating the embedded store in ${pgdata} (first start only)`
          : `opening the embedded store in ${pgdata}…`,
      );
      store = await createEmbeddedStore({ dataDir: pgdata });
    } catch (error) {
      unlock();
      throw error;
    }
  }
  try {
    hooks.progress?.(
      firstStart
        ? 'creating the tables (database migrations)'
        : 'migrating… (applying any new database migrations)',
    );
    await runMigrations(store);
  } catch (error) {
    await store.close().catch(() => {});
    unlock();
    throw error;
  }
  const services = createServices({ store, clock: systemClock, config });
  // The live side has no DEFAULT partition: on PostgreSQL the current and next months (and the job's
  // three ahead) exist before the first write, even when the hourly job has not run for a while
  // (partitions.ts). A start on a read-only server (a standby about to be promoted) goes on: a write
  // that still finds no partition makes its month and is retried (evidence-writer.ts). The embedded
  // store leaves it to that retry and to the hourly job: there it cost about 1.4 CPU-seconds of
  // every start (bench/startup.mjs), a third of a restart.
  if (config.databaseUrl)
    await services.evidence.createPartitionsAhead().catch((error: unknown) => {
      hooks.progress?.(
        `evidence partitions not made at start (${(error as Error).message}); writes make them`,
      );
    });
  return {
    store,
    services,
    close: async () => {
      await store.close();
      if (!config.databaseUrl) repairModes(config.dataDir);
      unlock();
    },
  };
}

/** The migrations' own table is the first thing a store gets: without it the database is empty. */
async function assertPostgresStoreExists(store: Store, config: Config): Promise<void> {
  const exists = await store
    .pool!.query("select to_regclass('drizzle.__drizzle_migrations') is not null as present")
    .then((result) => result.rows[0]?.present === true)
    .catch(async (error: unknown) => {
      await store.close().catch(() => {});
      // 3D000 invalid_catalog_name: the database itself does not exist.
      if (pgErrorOf(error)?.code === '3D000') return null;
      throw error;
    });
  if (exists) return;
  if (exists !== null) await store.close();
  const where = storeLine(config)
    .replace(/^consent-service: store: /, '')
    .trimEnd();
  if (exists === null)
    throw new NoStoreError(
      `no store in ${where}: that database does not exist; create it (createdb) and start the service there, or set DATABASE_URL to the service's database`,
    );
  throw new NoStoreError(
    `no store in ${where}: it has no tables yet; start the service (npm start) or run consent-service migrate there, or set DATABASE_URL to the service's database`,
  );
}
