import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The user guides promise commands that work: these checks keep their links and the API calls they
// show in step with the repository and the served OpenAPI document.

const ROOT = path.resolve(import.meta.dirname, '../..');
const GUIDES = path.join(ROOT, 'docs/guides');

function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.name.endsWith('.md') ? [full] : [];
    });
  return [path.join(ROOT, 'README.md'), ...walk(path.join(ROOT, 'docs'))];
}

const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): Set<string> {
  const headings = withoutCode(fs.readFileSync(file, 'utf8')).match(/^#+ .*$/gm) ?? [];
  return new Set(
    headings.map((line) =>
      line
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

interface Call {
  file: string;
  method: string;
  path: string;
  query: string[];
}

/** The API calls a guide shows: curl commands (method from -X) and "METHOD /v1/…" in prose. */
function callsIn(file: string): Call[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const calls: Call[] = [];
  const add = (method: string, url: string) => {
    const [pathPart, queryPart = ''] = url.split('?');
    const query = [...queryPart.matchAll(/(?:^|&)([^=&]+)=/g)].map((m) => m[1]);
    calls.push({ file: path.basename(file), method, path: pathPart.replace(/[.,:;]$/, ''), query });
  };
  for (const line of text.split('\n')) {
    if (!/\bcurl\b/.test(line)) continue;
    const method = line.match(/-X\s+([A-Z]+)/)?.[1] ?? 'GET';
    for (const m of line.matchAll(/(?:\$BASE|https?:\/\/[^\s/"']+)(\/v1\/[^\s"']*)/g)) add(method, m[1]);
  }
  for (const m of withoutCode(text).matchAll(/\b(GET|POST|PATCH|DELETE) `?(\/v1\/[^\s`)]+)/g)) {
    if (!m[2].includes('…')) add(m[1], m[2]);
  }
  return calls;
}

/** A documented path segment that stands for an id: `$CH`, `:id`, `<purposeId>`, `evt_…`, `site_test_x`. */
const isPlaceholder = (segment: string) =>
  /^[$:<]/.test(segment) || segment.includes('…') || /^[a-z]+_[A-Za-z0-9_]+$/.test(segment);

/** The operation a documented call reaches; a literal segment wins over a parameter, as in the router. */
function matchOperation(spec: any, call: Call): any {
  const wanted = call.path.split('/');
  let best: { operation: any; literals: number } | null = null;
  for (const [template, operations] of Object.entries<any>(spec.paths)) {
    const parts = template.split('/');
    const operation = operations[call.method.toLowerCase()];
    if (!operation || parts.length !== wanted.length) continue;
    const fits = parts.every((part, i) =>
      part.startsWith('{') ? true : part === wanted[i] && !isPlaceholder(wanted[i]),
    );
    const literals = parts.filter((part) => !part.startsWith('{')).length;
    if (fits && (!best || literals > best.literals)) best = { operation, literals };
  }
  return best?.operation ?? null;
}

describe('user guides', () => {
  let t: TestApp;
  let spec: any;
  beforeAll(async () => {
    t = await startTestApp();
    spec = (await t.http.get('/v1/openapi.json')).body;
  });
  afterAll(() => t.close());

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const [, link] of withoutCode(fs.readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [target, anchor] = link.split('#');
        const resolved = target ? path.resolve(path.dirname(file), target) : file;
        if (!fs.existsSync(resolved)) broken.push(`${path.relative(ROOT, file)}: ${link}`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
          broken.push(`${path.relative(ROOT, file)}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('call only operations and query parameters of the OpenAPI document', () => {
    const calls = fs.readdirSync(GUIDES).flatMap((name) => callsIn(path.join(GUIDES, name)));
    expect(calls.length).toBeGreaterThan(40);
    const unknown: string[] = [];
    for (const call of calls) {
      const operation = matchOperation(spec, call);
      if (!operation) {
        unknown.push(`${call.file}: ${call.method} ${call.path}`);
        continue;
      }
      const declared = new Set(
        (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
      );
      for (const name of call.query.filter((q) => !declared.has(q)))
        unknown.push(`${call.file}: ${call.method} ${call.path} ?${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it('catch a call that the API does not have', () => {
    const made = { file: 'x.md', method: 'POST', path: '/v1/channels/$CH/purges', query: [] };
    expect(matchOperation(spec, made)).toBeNull();
    const wrongMethod = { file: 'x.md', method: 'DELETE', path: '/v1/channels/$CH', query: [] };
    expect(matchOperation(spec, wrongMethod)).toBeNull();
  });
});
