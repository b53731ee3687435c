import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// store-independent: reads test files only

/**
 * A skipped test says why (test/helpers/skip.ts): vitest's `skipIf(condition)` prints only a count,
 * so each goes through `skipWith(reason)`, which prints the reason; a bare `.skip`, `.runIf` or
 * `.todo` would skip in silence, and a `context.skip()` must carry its reason as an argument.
 */
const TEST_DIR = path.resolve(import.meta.dirname, '..');

function testFiles(): string[] {
  return fs
    .readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.includes('node_modules'))
    .map((name) => path.join(TEST_DIR, name));
}

/** Every way of skipping in a file that does not state its reason, as `file:line: text`. */
function silentSkips(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    const where = `${path.relative(TEST_DIR, file)}:${index + 1}: ${line.trim()}`;
    if (/\b(?:describe|it|test)\.(?:skip|runIf|todo)\b(?!If)/.test(line)) found.push(where);
    if (/\b(?:describe|it|test)\.skipIf\((?!\s*$)(?!skipWith\()/.test(line)) found.push(where);
    if (/\.skip\(\s*\)/.test(line)) found.push(where);
  });
  // A skipIf whose condition starts on the next line: that line must be the skipWith call.
  for (const match of text.matchAll(/\.skipIf\(\s*\n\s*(.*)/g))
    if (!match[1].startsWith('skipWith('))
      found.push(`${path.relative(TEST_DIR, file)}: .skipIf( ${match[1]}`);
  return found;
}

describe('skipped tests', () => {
  it('each says why it is skipped', () => {
    const files = testFiles().filter((file) => file !== import.meta.filename);
    expect(files.length).toBeGreaterThan(100);
    const silent = files.flatMap((file) => silentSkips(file, fs.readFileSync(file, 'utf8')));
    expect(silent).toEqual([]);
  });

  it('the rule finds the silent forms and passes the ones that give a reason', () => {
    const sample = [
      "describe.skipIf(!process.env.DATABASE_URL)('a', () => {});",
      "it.skip('b', () => {});",
      "describe.runIf(process.env.CI)('c', () => {});",
      "it.todo('d');",
      'if (!ready) context.skip();',
      'describe.skipIf(',
      '  !databaseUrl,',
      ")('e', () => {});",
      "describe.skipIf(skipWith(postgresOnly()))('f', () => {});",
      "if (!redis) context.skip('no Redis answers at REDIS_URL');",
      'describe.skipIf(',
      "  skipWith(browserSkipReason),\n)('g', () => {});",
    ].join('\n');
    expect(silentSkips(path.join(TEST_DIR, 'x.test.ts'), sample)).toHaveLength(6);
  });
});
