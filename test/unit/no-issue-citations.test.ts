import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The reader of this repository has no issue tracker: a comment, a test name or a doc says why in
 * words, never "issue 40 item 1". Every tracked text file is read (git ls-files), this one aside.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SELF = path
  .relative(ROOT, import.meta.filename)
  .split(path.sep)
  .join('/');
const TEXT = /\.(ts|tsx|mts|mjs|cjs|js|md|sh|txt|json|yaml|yml|html|css|sql)$|^\.ci\/run$/;
// Built from parts so that this file's own source does not read as a citation.
const CITATION = new RegExp(['[Ii]ssues? #?[0-9]+', '#[0-9]{2} items?'].join('|'));

function citations(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (CITATION.test(line) ? [i + 1] : []));
}

describe('no issue numbers in the repository', () => {
  it('finds a citation where there is one (planted)', () => {
    expect(citations(`// fine\n// see ${'iss'}ue 40 item 1\n#12 heading\n`)).toEqual([2]);
    expect(citations("it('hostile GPP strings', () => {})")).toEqual([]);
  });

  it('no tracked text file cites an issue number', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => TEXT.test(file) && file !== SELF && !file.startsWith('data/'));
    expect(files.length).toBeGreaterThan(500);
    const found = files.flatMap((file) => {
      const full = path.join(ROOT, file);
      if (!fs.existsSync(full)) return [];
      return citations(fs.readFileSync(full, 'utf8')).map((line) => `${file}:${line}`);
    });
    expect(found, 'write the reason out instead of the issue number').toEqual([]);
  });
});
