import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Store } from './store.ts';

const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Any constant works; it only has to be the same in every replica.
const MIGRATION_LOCK_KEY = 7_344_210_001;

/** Applies the committed SQL migrations in order; replicas starting together take turns. */
export async function runMigrations(store: Store): Promise<void> {
  if (store.pglite) {
    await migratePglite(drizzlePglite(store.pglite), { migrationsFolder });
    return;
  }
  const client = await store.pool!.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrateNodePg(drizzleNodePg(client), { migrationsFolder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
