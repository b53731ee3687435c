import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SDK_SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../sdk/src');

/**
 * The lines of `source` that declare module-level mutable state: a `let` or `var` at the top level
 * of the file (not indented, so not inside a function, class or block).
 */
function moduleLevelLets(source: string): string[] {
  return source.split('\n').filter((line) => /^(export\s+)?(let|var)\s/.test(line));
}

/**
 * Each SDK instance keeps its state in its own record and draws into its own UI roots
 * (sdk/src/consent.ts, dom.ts), so two SDKs on one page never share a banner. A `let` at the top
 * of a file under sdk/src would be state every instance shares: none is allowed.
 */
describe('sdk/src module state', () => {
  it('finds a planted module-level let (the scan can fail)', () => {
    expect(
      moduleLevelLets(
        'const a = 1;\nlet root: HTMLElement | null = null;\nfunction f() {\n  let x = 1;\n}\n',
      ),
    ).toEqual(['let root: HTMLElement | null = null;']);
    expect(moduleLevelLets('export let n = 0;\nvar v;')).toEqual(['export let n = 0;', 'var v;']);
  });

  it('has no module-level let or var in any file of sdk/src', () => {
    const files = (fs.readdirSync(SDK_SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((file) =>
      moduleLevelLets(fs.readFileSync(path.join(SDK_SRC, file), 'utf8')).map((line) => `${file}: ${line}`),
    );
    expect(found).toEqual([]);
  });
});
