import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The per-file isolation check (test/helpers/file-isolation.ts) fails a file that leaves state
 * for the next file in its worker, and passes one that cleans up. Runs vitest on a project of its
 * own in a temporary directory, with that setup file and the suite's worker settings
 * (`isolate: false`, forks).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-isolation-check-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  // These fixture files use no store: without DATABASE_URL they need no database of their own.
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [VITEST, 'run', '--root', tmp, '--reporter=verbose'],
      { cwd: tmp, env, timeout: 60_000 },
      (_error, stdout, stderr) => resolve(stdout + stderr),
    );
  });
}

describe('the per-file isolation check', () => {
  it('fails the files that leave an env var, a global, fake timers, a server or a timer, and passes a clean one', async () => {
    const setup = JSON.stringify(path.join(ROOT, 'test/helpers/file-isolation.ts'));
    fs.writeFileSync(
      path.join(tmp, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.mjs'], setupFiles: [${setup}], isolate: false, pool: 'forks', maxWorkers: 1 } };\n`,
    );
    const files = {
      'env.test.mjs': "it('sets', () => { process.env.LEFT_BEHIND = '1'; });",
      'global.test.mjs': "it('stubs', () => { vi.stubGlobal('leftBehind', 1); });",
      'fake-timers.test.mjs': "it('fakes', () => { vi.useFakeTimers(); });",
      'server.test.mjs':
        "import http from 'node:http';\nit('listens', async () => { await new Promise((r) => http.createServer().listen(0, '127.0.0.1', r)); });",
      'timer.test.mjs': "it('waits', () => { setTimeout(() => {}, 600_000).unref(); });",
      'clean.test.mjs':
        "import http from 'node:http';\nit('cleans up', async () => { const s = http.createServer(); await new Promise((r) => s.listen(0, '127.0.0.1', r)); await new Promise((r) => s.close(r)); clearTimeout(setTimeout(() => {}, 1000)); vi.stubEnv('X_STUBBED', '1'); vi.unstubAllEnvs(); });",
    };
    for (const [name, body] of Object.entries(files)) {
      fs.writeFileSync(path.join(tmp, name), `import { it, vi } from 'vitest';\n${body}\n`);
    }
    const output = await run();
    expect(output).toContain('Test Files  5 failed | 1 passed (6)');
    expect(output).toContain('"LEFT_BEHIND"');
    expect(output).toContain('"leftBehind"');
    expect(output).toContain('"fakeTimers": true');
    expect(output).toContain('1 more servers than at the start');
    expect(output).toMatch(/a pending timer made at .*timer\.test\.mjs/);
  }, 90_000);
});
