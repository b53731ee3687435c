import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/**
 * Runs before each test file is imported (vitest setupFiles). On PostgreSQL it clones the migrated
 * template (made by the run's first file to ask, lazy-resources-global.ts) into a database of this file's own and points DATABASE_URL at it, so everything the file
 * starts (apps, workers, CLI child processes) uses it. The run's end drops these databases.
 */
const postgres = inject('postgresTemplate');
if (postgres) {
  // Imported here, not at the top: on the embedded store a file that starts no app (a unit test)
  // would otherwise load the database drivers and migrations for nothing, about a second a file.
  const [{ createPostgresStore }, { withDatabase }, { resource }] = await Promise.all([
    import('../../src/platform/db/store.ts'),
    import('./store-templates.ts'),
    import('./lazy-resources.ts'),
  ]);
  // The run's first file to get here has the template made; the others wait for it once.
  await resource('postgres-template');
  const name = `${postgres.prefix}${randomBytes(6).toString('hex')}`;
  const admin = createPostgresStore(postgres.adminUrl, { max: 1 });
  try {
    // CREATE DATABASE copies the template; two files cloning at the same instant may collide on its lock.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.pool!.query(`create database "${name}" template "${postgres.template}"`);
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.close();
  }
  process.env.DATABASE_URL = withDatabase(postgres.adminUrl, name);
}
