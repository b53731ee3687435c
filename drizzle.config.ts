import { defineConfig } from 'drizzle-kit';

// Migrations are generated from the table definitions of every module and committed;
// the service applies them on start (src/platform/db/migrate.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/platform/**/*.tables.ts', './src/modules/**/*.tables.ts'],
  out: './src/platform/db/migrations',
});
