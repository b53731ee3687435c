import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMarkedFiles, markerOf, STORE_ENTRIES } from '../helpers/store-independent.ts';

/**
 * The PostgreSQL pass of .ci/run skips the files marked `// store-independent: <reason>`: they run
 * once, on the embedded pass. A marked file must not reach a store by any import chain, nor start a
 * child process that could (test/helpers/store-independent.ts).
 */
describe('store-independent test files', () => {
  it('reach no store, by any import chain', () => {
    const { marked, violations } = checkMarkedFiles();
    expect(violations).toEqual([]);
    expect(marked.length).toBeGreaterThan(0);
  });

  it('leave the TCF validator on both stores', () => {
    const { marked } = checkMarkedFiles();
    // Named in CI's brief: the TCF validator's strings are stored and read back through the service.
    expect(marked).not.toContain('test/sdk/tcf-validator.test.ts');
  });

  describe('the check, on a planted tree', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-independent-'));
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
    // Quoted with @ here, so that the check, run on this file, does not take them for its imports.
    const write = (file: string, source: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), source.replaceAll('@', "'"));
    };
    for (const entry of STORE_ENTRIES) write(entry, 'export const store = 1;\n');
    write('test/x/unit.test.ts', 'import { a } from @./pure.ts@;\n// store-independent: pure\n');
    write('test/x/pure.ts', 'export const a = 1;\n');
    write(
      'test/x/types-only.test.ts',
      'import type { TestApp } from @../helpers/app.ts@;\n// store-independent: types\n',
    );
    write('test/x/through-helper.test.ts', 'import { h } from @./helper.ts@;\n// store-independent: wrong\n');
    write('test/x/helper.ts', 'export { startTestApp as h } from @../helpers/app.ts@;\n');
    write(
      'test/x/lazy.test.ts',
      'await import(@../../src/platform/db/store.ts@);\n// store-independent: wrong\n',
    );
    write(
      'test/x/child.test.ts',
      'import { spawn } from @node:child_process@;\n// store-independent: wrong\n',
    );
    write('test/x/unmarked.test.ts', 'import { startTestApp } from @../helpers/app.ts@;\n');

    it('finds a store reached through a helper, a dynamic import or a child process', () => {
      const { marked, violations } = checkMarkedFiles(root);
      expect(marked).toEqual([
        'test/x/child.test.ts',
        'test/x/lazy.test.ts',
        'test/x/through-helper.test.ts',
        'test/x/types-only.test.ts',
        'test/x/unit.test.ts',
      ]);
      expect(violations).toEqual([
        { file: 'test/x/child.test.ts', chain: ['test/x/child.test.ts', 'node:child_process'] },
        { file: 'test/x/lazy.test.ts', chain: ['test/x/lazy.test.ts', 'src/platform/db/store.ts'] },
        {
          file: 'test/x/through-helper.test.ts',
          chain: ['test/x/through-helper.test.ts', 'test/x/helper.ts', 'test/helpers/app.ts'],
        },
      ]);
    });
  });

  it('reads the marker only on a line of its own, with a reason', () => {
    expect(markerOf('x\n// store-independent: pure functions\n')).toBe('pure functions');
    expect(markerOf('// store-independent:\n')).toBeNull();
    expect(markerOf("const s = '// store-independent: no';\n")).toBeNull();
  });
});

// store-independent: reads source files only
