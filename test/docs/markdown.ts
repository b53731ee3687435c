import fs from 'node:fs';
import path from 'node:path';

/**
 * Reading the docs as a test does: their files, headings, the API calls they show, and the OpenAPI
 * operation each call reaches (test/docs/guides.test.ts, examples.test.ts).
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const GUIDES = path.join(ROOT, 'docs/guides');

export function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.name.endsWith('.md') ? [full] : [];
    });
  return [path.join(ROOT, 'README.md'), ...walk(path.join(ROOT, 'docs'))];
}

export const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function anchors(file: string): Set<string> {
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

export interface Call {
  file: string;
  method: string;
  path: string;
  query: string[];
}

/** The API calls a guide shows: curl commands (method from -X) and "METHOD /v1/…" in prose. */
export function callsIn(file: string): Call[] {
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
export function matchOperation(spec: any, call: Call): any {
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
