import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: [
      'test/helpers/global-setup.ts',
      'test/helpers/openapi-global.ts',
      'test/helpers/sdk-bundles-global.ts',
      'test/helpers/chromium-global.ts',
    ],
    setupFiles: ['test/helpers/per-file-database.ts', 'test/helpers/openapi-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: each test file runs its own app and (embedded) database.
    maxWorkers: 2,
  },
});
