// The test files that run once, on the embedded pass only: each says so on a line of its own,
//   // store-independent: <why the store cannot change what it checks>
// and .ci/run excludes them from the PostgreSQL pass. A marked file must never reach a store: neither
// it nor any test or source file it imports (followed through relative imports, transitively) may
// import one of STORE_ENTRIES (the store, the app, the worker, the test app and its per-file
// database, the service or CLI as a child process), nor start a child process itself (a child
// inherits DATABASE_URL). `npx tsx test/helpers/store-independent.ts` prints the marked files, one a line, and
// fails listing every marked file that breaks the rule; test/platform/ci-layout.test.ts runs the same
// check in the suite.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Reaching any of these opens (or may open) a store. Paths relative to the repository. Helpers that
 * only take a running app (test/helpers/sites.ts, given a TestApp) are not listed: a file gets an
 * app only from test/helpers/app.ts, which is.
 */
export const STORE_ENTRIES = [
  'src/app.ts',
  'src/main.ts',
  'src/worker.ts',
  'src/services.ts',
  'src/platform/db/store.ts',
  'src/platform/db/migrate.ts',
  'test/helpers/app.ts',
  'test/helpers/per-file-database.ts',
  'test/helpers/store-templates.ts',
  'test/helpers/processes.ts',
  'test/helpers/pg-cluster.ts',
];

/**
 * A child process inherits DATABASE_URL: starting one counts as reaching a store, except in these
 * reviewed files, whose children cannot open one. A child that is a module of ours is listed with
 * it and followed like an import, so what it imports is checked too.
 */
export const REVIEWED_CHILD_PROCESSES: Record<string, { reason: string; children: string[] }> = {
  'test/scans/browser-processes.ts': { reason: 'runs ps to list Chromium processes', children: [] },
  'test/scans/memory-watch.test.ts': { reason: 'runs sh holding memory for the watch', children: [] },
  'src/modules/gpp/gpp-decoder-process.ts': {
    reason: 'forks the GPP decoder child',
    children: ['src/modules/gpp/gpp-decode-child.mjs'],
  },
};

const CHILD_PROCESS =
  /\bfrom\s+['"](node:)?child_process['"]|\bimport\(\s*['"](node:)?child_process['"]\s*\)/;
const MARKER = /^\/\/ store-independent: (\S.*)$/m;
const TYPE_ONLY = /\b(?:import|export)\s+type\s[^;]*?\bfrom\s+['"][^'"]+['"]/g;
const IMPORT =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]|\bexport\s+[^;]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every *.test.ts file under test/ and src/, relative to the repository, sorted. */
export function testFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(rel);
      } else if (entry.name.endsWith('.test.ts')) out.push(rel);
    }
  };
  for (const dir of ['test', 'src']) if (fs.existsSync(path.join(root, dir))) walk(dir);
  return out.sort();
}

/** The reason a file gives for running on one store only, or null when it has no marker. */
export function markerOf(source: string): string | null {
  return MARKER.exec(source)?.[1] ?? null;
}

function resolveImport(fromFile: string, specifier: string, root: string): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}/index.ts`,
    base.replace(/\.js$/, '.ts'),
  ]) {
    const full = path.join(root, candidate);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) return candidate;
  }
  return null;
}

/**
 * Why `file` can reach a store, as the import chain that does (["a.test.ts", "helpers/app.ts"]),
 * or null when it cannot.
 */
export function storePath(file: string, root = ROOT): string[] | null {
  const seen = new Set([file]);
  const queue: string[][] = [[file]];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const current = chain.at(-1)!;
    if (STORE_ENTRIES.includes(current)) return chain;
    if (!/\.(ts|tsx|mjs|js)$/.test(current)) continue;
    // Type-only imports are erased: they load nothing.
    const source = fs.readFileSync(path.join(root, current), 'utf8').replace(TYPE_ONLY, '');
    const reviewed = REVIEWED_CHILD_PROCESSES[current];
    if (CHILD_PROCESS.test(source) && !reviewed) return [...chain, 'node:child_process'];
    const imports = [...source.matchAll(IMPORT)].map((m) => resolveImport(current, m[1] ?? m[2], root));
    for (const next of [...imports, ...(reviewed?.children ?? [])]) {
      if (next && !seen.has(next)) {
        seen.add(next);
        queue.push([...chain, next]);
      }
    }
  }
  return null;
}

/** The marked files and, for each that can reach a store, the chain that does. */
export function checkMarkedFiles(root = ROOT): {
  marked: string[];
  violations: Array<{ file: string; chain: string[] }>;
} {
  const marked: string[] = [];
  const violations: Array<{ file: string; chain: string[] }> = [];
  for (const file of testFiles(root)) {
    const reason = markerOf(fs.readFileSync(path.join(root, file), 'utf8'));
    if (reason === null) continue;
    marked.push(file);
    const chain = storePath(file, root);
    if (chain) violations.push({ file, chain });
  }
  return { marked, violations };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { marked, violations } = checkMarkedFiles();
  for (const { file, chain } of violations)
    console.error(`${file} is marked store-independent but reaches a store: ${chain.join(' -> ')}`);
  if (violations.length > 0) process.exit(1);
  for (const file of marked) console.log(file);
}
