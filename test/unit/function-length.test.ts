import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function in src/ over 150 lines: past that, a reader cannot hold it in view, and a service
 * factory that long has become several services. The ones that predate the rule are listed below
 * (`file function`), to be split; the test fails when one is added, and when one is split but
 * still listed, so the list can only shrink.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 150;
const KNOWN_LONG: string[] = [
  'src/app.ts buildApp',
  'src/modules/channels/channels.service.ts createChannelsService',
  'src/modules/consent/consent.service.ts createConsentService',
  'src/modules/evidence/evidence.service.ts createEvidenceService',
  'src/modules/sites/sites.service.ts createSitesService',
  'src/modules/tcf/tcf.service.ts createTcfService',
  'src/services.ts createServices',
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The functions of a source text over `max` lines, as `file name` (anonymous ones by their line). */
function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) {
        const parent = node.parent;
        const name =
          (node.name && node.name.getText()) ||
          (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
            ? parent.name.getText()
            : null) ||
          `(line ${first + 1})`;
        found.push(`${file} ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('finds a long function, a long arrow and a long method (planted)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `function long() {\n${body(150)}\n}\nconst arrow = () => {\n${body(150)}\n};\nconst short = () => {\n${body(10)}\n};\nclass C {\n  method() {\n${body(149)}\n  }\n}\n`;
    expect(longFunctions('x.ts', text)).toEqual(['x.ts long', 'x.ts arrow', 'x.ts method']);
  });

  it(`no function in src/ is over ${MAX_LINES} lines (those that predate the rule listed)`, () => {
    const files = sourceFiles(path.join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((file) =>
      longFunctions(path.relative(ROOT, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')),
    );
    expect(found.sort()).toEqual([...KNOWN_LONG].sort());
  });
});
