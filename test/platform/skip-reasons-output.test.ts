import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * A skipped test's reason is in the output of vitest's default reporter, the one `npm test` and CI
 * use: a suite skipped with `skipWith(reason)` and a test that calls `context.skip(reason)` as it
 * runs, in a run of two files (with one file, the reporter lists every test and would show the
 * note anyway). Runs vitest on a project of its own in a temporary directory, with the suite's
 * skip helpers.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-skip-output-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a skipped test says why, in the default reporter', () => {
  it('both ways of skipping print their reason', async () => {
    const helpers = (name: string) => JSON.stringify(path.join(ROOT, 'test/helpers', name));
    fs.writeFileSync(
      path.join(tmp, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.mjs'], setupFiles: [${helpers('skip-notes-setup.ts')}] } };\n`,
    );
    fs.writeFileSync(
      path.join(tmp, 'widgets.test.mjs'),
      `import { describe, it } from 'vitest';
import { skipWith } from ${helpers('skip.ts')};
describe.skipIf(skipWith('no widget here: install the widget'))('widgets', () => { it('spin', () => {}); });
it('gadgets', (context) => { context.skip('the gadget is missing: set GADGET_URL'); });
it('runs', () => {});
`,
    );
    fs.writeFileSync(
      path.join(tmp, 'other.test.mjs'),
      "import { it } from 'vitest';\nit('passes', () => {});\n",
    );
    const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' };
    for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [VITEST, 'run', '--root', tmp, '--reporter=default'],
      { cwd: tmp, env, timeout: 60_000 },
    );
    const output = stdout + stderr;
    expect(output).toContain('Tests  2 passed | 2 skipped (4)');
    expect(output).toContain('skipped: no widget here: install the widget');
    expect(output).toContain('skipped: gadgets: the gadget is missing: set GADGET_URL');
  }, 90_000);
});
