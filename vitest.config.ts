import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Two projects. "unit": tests of pure code (test/unit), with no setup at all, so
    // `npm run test:unit` answers in seconds. "service": everything else, against real stores,
    // services and browsers; the resources they share are made the first time a file asks for one
    // (test/helpers/lazy-resources-global.ts), so a file pays only for what it uses.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', '**/node_modules/**'],
          globalSetup: ['test/helpers/lazy-resources-global.ts', 'test/helpers/openapi-global.ts'],
          setupFiles: [
            'test/helpers/per-file-database.ts',
            'test/helpers/sdk-bundles-setup.ts',
            'test/helpers/openapi-setup.ts',
            'test/helpers/skip-notes-setup.ts',
            // Last, so its check runs after every other hook of the file.
            'test/helpers/file-isolation.ts',
          ],
        },
      },
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files run one after another in a few long-lived worker processes, not each in a fresh one:
    // loading the app's modules again for every file was about 2 CPU-seconds a file. So a file must
    // leave nothing behind in a shared module or a global (close its apps, unstub its globals);
    // setupFiles still run for every file (README "Tests"). The embedded pass took 885 s this way,
    // on a machine a helper shared, against 1,857 s in the last CI run with a process per file.
    isolate: false,
    // PGlite's WebAssembly compiled with V8's baseline compiler only. With a process per file it cost
    // about a quarter less CPU per file (six typical and four heavy embedded files, alternating runs:
    // 71 -> 47-55 and 64 -> 53 CPU-seconds); now that workers keep their PGlite instances from file to
    // file (test/helpers/embedded-instances.ts), runs with and without it measured the same. The
    // service's own start does the same for the embedded store (bin/consent-service.mjs).
    execArgv: ['--liftoff-only'],
    // Two cores: each test file runs its own app and (embedded) database.
    maxWorkers: 2,
  },
});
