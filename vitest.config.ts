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
    // Each test file's process compiles PGlite's WebAssembly again; with V8's baseline compiler only
    // it costs about a quarter less CPU per file, heavy query files included (measured on six typical
    // and four heavy embedded files, alternating runs: 71 -> 47-55 and 64 -> 53 CPU-seconds). The
    // service's own start does the same for the embedded store (bin/consent-service.mjs).
    execArgv: ['--liftoff-only'],
    // Two cores: each test file runs its own app and (embedded) database.
    maxWorkers: 2,
  },
});
