import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser, sqlLiterals } from './sql-tables.ts';

/**
 * The import rules, read from the source itself:
 * - `src/platform/**` knows no feature: it imports nothing from `src/modules`, nor the wiring
 *   (`app.ts`, `services.ts`, `worker.ts`, `main.ts`, `cli/`).
 * - `src/config.ts` imports no module.
 * - A module reaches another module only through that module's services (`<b>/*.service.ts`),
 *   its public schemas (`<b>/*.schemas.ts`) or its tables (`<b>/*.tables.ts`: the database
 *   schema is one, and drizzle needs the other table for a foreign key or a join), or its SQL
 *   fragments (`<b>/*.sql.ts`: SQL over its tables that another module's statement composes),
 *   in the module's folder or a sub-folder of it (`<b>/settings/*.service.ts`: the file's own
 *   name counts). Repos, presenters and helpers stay private to their module.
 * - A module does not import the wiring either (it is given its dependencies).
 * - No cycles between modules and platform parts: in the graph of their imports (type imports
 *   too), no two reach each other. Code that needs two modules that each stand alone (bootstrap
 *   needs organizations and api-keys) lives in a place that depends on both (`src/cli`).
 * - The console (`console/`, bundled for the browser) imports from `src/` only what is in
 *   `src/shared/`, and `src/shared/` imports nothing outside itself (no package either): rules both
 *   apply live there, not in a module the console would reach into.
 *
 * Every table has one owning module (or platform part): the one whose `*.tables.ts` declares it,
 * or, for a table made only by a SQL migration, the one MIGRATION_TABLE_OWNERS names. Every `.ts`
 * file under src/ (not only `*.sql.ts` and `*.repo.ts`: a COPY in an export, a gauge in metrics)
 * names only its own unit's tables; SQL over another module's table comes from that owner, as a
 * fragment of its `*.sql.ts` composed into the statement, or as its drizzle table object
 * (`${channels}`), never as the table's name written by someone else. Files outside any unit (the
 * wiring, cli/) name no table at all.
 *
 * And, over the whole tree:
 * - another unit's `*.tables.ts` is imported only from a `*.tables.ts` (a foreign key, a join in
 *   the schema); other code takes the owner's SQL fragments or types through its service;
 * - a `*.service.ts` re-exports nothing of another file except its module's public parts
 *   (`*.schemas.ts`, `*.sql.ts`, `*.tables.ts`);
 * - no module touches a database driver (`pg`, PGlite, `store.pool`, `store.pglite`): the store's
 *   calls (`tx`, `statement`, `caughtUpReader`) are the one path to the database;
 * - the top-level parts (src, sdk, console, packages, test, bench, clients, scripts) import each
 *   other only along ALLOWED_EDGES, each with its reason.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const CONSOLE = path.join(ROOT, 'console/src');

/**
 * The imports allowed between the repository's top-level parts (paths from the root, matched by
 * prefix), and why. Anything else crossing from one part into another fails the test.
 */
const ALLOWED_EDGES: Array<{ from: string; to: string; why: string }> = [
  { from: 'sdk/', to: 'src/shared/', why: 'rules the browser shares with the service live in src/shared' },
  {
    from: 'sdk/build.ts',
    to: 'src/platform/http/bundle-encodings.ts',
    why: 'the build compresses and versions the bundles with the functions the service checks them with',
  },
  { from: 'console/', to: 'src/shared/', why: 'rules the console shares with the service' },
  {
    from: 'console/',
    to: 'clients/typescript/src/',
    why: "the API's types, generated from the OpenAPI document",
  },
  {
    from: 'console/src/views/tcf-preview.ts',
    to: 'sdk/src/tcf/layers/',
    why: "the console's TCF preview renders the SDK's own layers, so what it shows is what visitors see",
  },
  {
    from: 'packages/',
    to: 'sdk/src/',
    why: 'the browser package is the SDK as a module; the core shares its decision logic (one client core)',
  },
  {
    from: 'packages/core/',
    to: 'src/shared/',
    why: 'the core makes the Additional Consent string by the rule the service checks it with',
  },
  { from: 'test/', to: '', why: 'tests drive every part' },
  { from: 'bench/', to: 'src/', why: 'benchmarks start the service' },
  {
    from: 'bench/',
    to: 'test/helpers/',
    why: 'benchmarks build the same fixtures (GPP, vendor lists) as tests',
  },
  { from: 'clients/typescript/scripts/', to: 'src/', why: 'the client is generated from the running app' },
  { from: 'scripts/', to: 'src/', why: 'maintenance scripts refresh data files the service reads' },
];
const TOP_LEVEL = ['src', 'sdk', 'console', 'packages', 'test', 'bench', 'clients', 'scripts'];

/**
 * Rule breaks kept on purpose, each with why: the test fails when one is added, and when one is
 * fixed but still listed, so these lists can only shrink. What is left are drizzle joins across two
 * modules' tables in one statement, where the owner's table object is the fragment.
 */
const KNOWN_TABLES_IMPORTS: Array<{ rule: string; why: string }> = [
  {
    rule: 'modules/api-keys/api-keys.repo.ts -> modules/organizations/organizations.tables.ts',
    why: "every authenticated request finds its key, its member's role and its organization's rate limit in one drizzle join",
  },
  {
    rule: 'modules/console/sessions.repo.ts -> modules/organizations/organizations.tables.ts',
    why: "every console request finds its session, its member and its organization's rate limit in one drizzle join",
  },
  {
    rule: 'modules/evidence/consent-state.repo.ts -> modules/channels/channels.tables.ts',
    why: "the state read joins the channels table so the channel is checked to be the scope's in the same statement",
  },
  {
    rule: 'modules/exports/evidence-reader.ts -> modules/evidence/evidence.tables.ts',
    why: "exports read evidence oldest first in index-seeking keyset batches, which the evidence service's newest-first list cannot",
  },
];
/** A service passing on a private file of its module: none left (the list stays, so none comes back unseen). */
const KNOWN_SERVICE_REEXPORTS: Array<{ rule: string; why: string }> = [];
const WIRING = ['app.ts', 'services.ts', 'worker.ts', 'main.ts'];

/** Tables created only by SQL migrations (no drizzle table), and the module that owns each. */
const MIGRATION_TABLE_OWNERS: Record<string, string> = {
  consent_analytics_daily: 'modules/analytics',
  consent_analytics_purposes: 'modules/analytics',
  consent_state_backfill: 'modules/evidence',
  // evidence_events' partitions (migration 0032) and the online migration's staging tables.
  evidence_events_test: 'modules/evidence',
  evidence_events_live: 'modules/evidence',
  evidence_events_test_default: 'modules/evidence',
  evidence_events_live_default: 'modules/evidence',
  evidence_events_next: 'modules/evidence',
  evidence_events_changed: 'modules/evidence',
  evidence_events_copied: 'modules/evidence',
};

/** The module (`modules/<name>`) or platform part (`platform/<name>`) a path under src/ belongs to. */
function unitOf(rel: string): string | null {
  const [top, name] = rel.split('/');
  return (top === 'modules' || top === 'platform') && name ? `${top}/${name}` : null;
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The specifiers a file imports and re-exports from (`import('…')` too). */
function specifiersOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]);
}

/** Relative imports and re-exports of a file, resolved to paths under `base` (src/ unless told). */
function importsOf(file: string, base = SRC): string[] {
  return specifiersOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      path
        .relative(base, path.resolve(path.dirname(file), s))
        .split(path.sep)
        .join('/'),
    );
}

/** The first rules' breaks among `edges` (paths under src/): every import of the tree unless told. */
function violations(edges: Array<[from: string, to: string]> = sourceEdges()): string[] {
  const found: string[] = [];
  for (const [from, to] of edges) {
    const wiring = WIRING.includes(to) || to.startsWith('cli/');
    if (from.startsWith('platform/') && (to.startsWith('modules/') || wiring)) {
      found.push(`${from} -> ${to}: platform imports no module and no wiring`);
    }
    if (from === 'config.ts' && (to.startsWith('modules/') || wiring)) {
      found.push(`${from} -> ${to}: config imports no module`);
    }
    if (from.startsWith('modules/')) {
      if (wiring) found.push(`${from} -> ${to}: a module is given its dependencies, it imports no wiring`);
      const [, a] = from.split('/');
      const [top, b] = to.split('/');
      if (top !== 'modules' || b === a) continue;
      // The file's own name, so a module's sub-folders (modules/tcf/settings/…) keep the rule.
      if (!/\.(service|schemas|tables|sql)\.ts$/.test(to.split('/').at(-1) ?? '')) {
        found.push(
          `${from} -> ${to}: reach module ${b} through its services, schemas, tables or SQL fragments`,
        );
      }
    }
  }
  return found;
}

/** Each table's owner: from `pgTable('name'` in a `*.tables.ts`, then MIGRATION_TABLE_OWNERS. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const file of sourceFiles(SRC).filter((f) => f.endsWith('.tables.ts'))) {
    const owner = unitOf(relative(file));
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/pgTable\(\s*'([^']+)'/g)) {
      if (owner) owners.set(m[1], owner);
    }
  }
  for (const [table, owner] of Object.entries(MIGRATION_TABLE_OWNERS)) owners.set(table, owner);
  return owners;
}

/** Every table a migration creates. */
function migrationTables(): string[] {
  const dir = path.join(SRC, 'platform/db/migrations');
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .flatMap((name) =>
      [
        ...fs
          .readFileSync(path.join(dir, name), 'utf8')
          .matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?/gi),
      ].map((m) => m[1]),
    );
}

/** Code without its comments (`//`, block comments, SQL's `-- `): a table named in prose is not SQL. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/-- .*$/gm, '');
}

/**
 * The tables of other owners that the SQL of `source` (a TypeScript file of `unit`) names, read by
 * PostgreSQL's parser (sql-tables.ts): a comma join, `USING`, a subquery or a CTE's body count like
 * a JOIN; a CTE's own name, a comment, a string and a `${table}` drizzle object do not. A literal
 * shaped like SQL that the parser cannot read under any stand-in (prose: an error message, an API
 * description) is held to the older, looser rule: no table name of another owner after FROM, JOIN,
 * INTO, UPDATE, TABLE, USING or REFERENCES, nor in a list after one.
 */
function foreignTables(unit: string, source: string, owners: Map<string, string>): string[] {
  const found: string[] = [];
  const note = (table: string) => {
    const owner = owners.get(table);
    if (owner && owner !== unit) found.push(`${table} (owned by ${owner})`);
  };
  for (const literal of sqlLiterals(`${unit}.ts`, source)) {
    if (literal.tables) literal.tables.forEach(note);
    else for (const table of namedInProse(literal.text)) note(table);
  }
  return found;
}

/** Names after a table keyword in text the parser cannot read, and in a comma list after one. */
function namedInProse(text: string): string[] {
  const after =
    /\b(?:from|join|into|update|table|using|references)\s+((?:"?[a-z_][a-z0-9_]*"?(?:\s+[a-z_]\w*)?\s*,\s*)*"?[a-z_][a-z0-9_]*)/gi;
  return [...withoutComments(text).matchAll(after)].flatMap((m) =>
    m[1].split(',').map((item) => item.trim().split(/\s+/)[0].replaceAll('"', '')),
  );
}

/**
 * The files whose SQL is checked: every `.ts` file under src/ but the table declarations
 * themselves (`*.tables.ts`, whose references name foreign keys) and the migrations runner.
 */
function sqlFiles(): string[] {
  return sourceFiles(SRC).filter((file) => !file.endsWith('.tables.ts'));
}

function tableViolations(): string[] {
  const owners = tableOwners();
  return sqlFiles().flatMap((file) => {
    const rel = relative(file);
    // Outside any unit (the wiring, cli/): every table is another unit's.
    return foreignTables(unitOf(rel) ?? rel, fs.readFileSync(file, 'utf8'), owners).map(
      (table) => `${rel} names ${table}: take that SQL from its owner's fragment`,
    );
  });
}

/** Imports of another unit's `*.tables.ts` from a file that is no `*.tables.ts` (paths under src/). */
function tablesImportViolations(edges: Array<[from: string, to: string]>): string[] {
  return edges
    .filter(([from, to]) => {
      const [a, b] = [unitOf(from), unitOf(to)];
      return a && b && a !== b && to.endsWith('.tables.ts') && !from.endsWith('.tables.ts');
    })
    .map(([from, to]) => `${from} -> ${to}`);
}

/**
 * What a `*.service.ts` (`file`, under src/) re-exports from a file other than its module's public
 * parts (`*.schemas.ts`, `*.sql.ts`, `*.tables.ts`): `export … from './x.ts'`, and
 * `export { name }` of a name it imported from such a file.
 */
function serviceReexports(file: string, text: string): string[] {
  if (!file.endsWith('.service.ts')) return [];
  const resolve = (s: string) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s));
  const isPublic = (to: string) => /\.(schemas|sql|tables)\.ts$/.test(to);
  const found = new Set<string>();
  for (const m of text.matchAll(/^\s*export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s+'(\.[^']+)'/gm)) {
    const to = resolve(m[1]);
    if (!isPublic(to)) found.add(`${file} re-exports ${to}`);
  }
  const importedFrom = new Map<string, string>();
  for (const m of text.matchAll(/^\s*import\s+(?:type\s+)?\{([^}]*)\}\s*from\s+'(\.[^']+)'/gm)) {
    for (const name of m[1].split(',')) {
      const local = name
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (local) importedFrom.set(local, resolve(m[2]));
    }
  }
  for (const m of text.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}\s*;/gm)) {
    for (const name of m[1].split(',')) {
      const local = name
        .replace(/^\s*type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim();
      const to = importedFrom.get(local);
      if (to && !isPublic(to)) found.add(`${file} re-exports ${to}`);
    }
  }
  return [...found];
}

function serviceReexportViolations(): string[] {
  return sourceFiles(SRC)
    .flatMap((file) => serviceReexports(relative(file), fs.readFileSync(file, 'utf8')))
    .sort();
}

/** A module's use of a database driver (`text` of a file of `src/modules`), by what it names. */
function driverUses(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  if (/from\s+'(pg|pg-copy-streams|@electric-sql\/pglite)'/.test(code)) found.push('imports a driver');
  if (/\.(pool|pglite|replicaPool)\b/.test(code)) found.push("reaches the store's driver (.pool, .pglite)");
  return found;
}

function driverViolations(): string[] {
  return sourceFiles(path.join(SRC, 'modules')).flatMap((file) =>
    driverUses(fs.readFileSync(file, 'utf8')).map((use) => `${relative(file)} ${use}`),
  );
}

/**
 * Route files take the database as the request sees it (`request.db`, a DbScope: inside an
 * idempotent request's transaction its writes commit with the record) and hand it to the service;
 * they never reach the store's own handles, which would run beside that transaction.
 */
function routeStoreUses(text: string): string[] {
  return [...withoutComments(text).matchAll(/\bstore\.(db|tx|replica|scope)\b/g)].map((m) => `store.${m[1]}`);
}

function routeStoreViolations(): string[] {
  return sourceFiles(SRC)
    .filter((file) => file.endsWith('.routes.ts'))
    .flatMap((file) =>
      routeStoreUses(fs.readFileSync(file, 'utf8')).map((use) => `${relative(file)} uses ${use}`),
    );
}

/** The top-level part (`src`, `sdk`, …) a path from the root is in; null for a root file. */
const partOf = (rel: string) => (rel.includes('/') ? rel.split('/')[0] : null);

/** Imports (paths from the root) that cross from one top-level part into another off ALLOWED_EDGES. */
function edgeViolations(edges: Array<[from: string, to: string]>): string[] {
  return edges
    .filter(([from, to]) => {
      const [a, b] = [partOf(from), partOf(to)];
      if (!a || !b || a === b) return false;
      return !ALLOWED_EDGES.some((edge) => from.startsWith(edge.from) && to.startsWith(edge.to));
    })
    .map(([from, to]) => `${from} -> ${to}: not an allowed edge between ${partOf(from)} and ${partOf(to)}`);
}

/** Every `.ts`/`.mts`/`.mjs`/`.tsx` file of the top-level parts (no node_modules, no build output). */
function treeFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    if (entry.isDirectory()) return treeFiles(full);
    return /\.(ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative imports of every file of the tree, from the repository root. */
function treeEdges(): Array<[string, string]> {
  return TOP_LEVEL.flatMap((part) => treeFiles(path.join(ROOT, part))).flatMap((file) =>
    importsOf(file, ROOT).map((to): [string, string] => [
      path.relative(ROOT, file).split(path.sep).join('/'),
      to,
    ]),
  );
}

/** Every import between two modules or platform parts, as a graph of units (`modules/<name>`). */
function moduleGraph(edges: Array<[from: string, to: string]>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const [a, b] = [unitOf(from), unitOf(to)];
    if (!a || !b || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
  }
  return graph;
}

function sourceEdges(): Array<[string, string]> {
  return sourceFiles(SRC).flatMap((file) =>
    importsOf(file).map((to): [string, string] => [relative(file), to]),
  );
}

/** The cycles of a graph: each strongly connected set of two or more units (Tarjan), sorted. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        members.push(member);
      } while (member !== node);
      if (members.length > 1) found.push(members.sort().join(' <-> '));
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort();
}

/**
 * Imports (paths from the repository root, a package by its name) that break the console's rule:
 * a console file importing from src/ outside src/shared/, or a src/shared/ file importing anything
 * outside src/shared/.
 */
function consoleViolations(edges: Array<[from: string, to: string]>): string[] {
  const found: string[] = [];
  for (const [from, to] of edges) {
    if (from.startsWith('console/') && to.startsWith('src/') && !to.startsWith('src/shared/')) {
      found.push(`${from} -> ${to}: the console imports from src only through src/shared`);
    }
    if (from.startsWith('src/shared/') && !to.startsWith('src/shared/')) {
      found.push(`${from} -> ${to}: src/shared imports nothing outside itself`);
    }
  }
  return found;
}

/** The imports of the console's files and of src/shared/, from the repository root. */
function consoleEdges(): Array<[string, string]> {
  const files = [...sourceFiles(CONSOLE), ...sourceFiles(path.join(SRC, 'shared'))];
  return files.flatMap((file) => {
    const from = path.relative(ROOT, file).split(path.sep).join('/');
    const packages = specifiersOf(file).filter((s) => !s.startsWith('.'));
    return [...importsOf(file, ROOT), ...packages].map((to): [string, string] => [from, to]);
  });
}

describe('layering', () => {
  beforeAll(loadSqlParser);

  it('platform imports no module, config imports no module, modules meet only through services', () => {
    expect(violations()).toEqual([]);
  });

  it("the module rule reads the imported file's own name, in a module's sub-folders too (planted)", () => {
    expect(
      violations([
        ['modules/consent/consent.service.ts', 'modules/tcf/settings/tcf-settings.service.ts'],
        ['modules/consent/consent.schemas.ts', 'modules/tcf/tc-strings/tc-string.schemas.ts'],
        ['modules/consent/decision-strings.ts', 'modules/tcf/tc-strings/tc-string-rules.ts'],
        ['modules/sites/site-tcf.ts', 'modules/tcf/vendor-list/tcf-vendor-list.routes.ts'],
        // A folder named like a public part does not make its files public.
        ['modules/sites/site-tcf.ts', 'modules/tcf/x.service.ts/helper.ts'],
        ['modules/tcf/tc-strings/tc-string-served.ts', 'modules/tcf/settings/tcf-settings.service.ts'],
        ['modules/tcf/tcf.service.ts', 'modules/tcf/vendor-list/vendor-list-view.ts'],
      ]),
    ).toEqual([
      'modules/consent/decision-strings.ts -> modules/tcf/tc-strings/tc-string-rules.ts: reach module tcf through its services, schemas, tables or SQL fragments',
      'modules/sites/site-tcf.ts -> modules/tcf/vendor-list/tcf-vendor-list.routes.ts: reach module tcf through its services, schemas, tables or SQL fragments',
      'modules/sites/site-tcf.ts -> modules/tcf/x.service.ts/helper.ts: reach module tcf through its services, schemas, tables or SQL fragments',
    ]);
  });

  it("every table has one owner, and SQL names only its own module's tables", () => {
    const owners = tableOwners();
    expect(migrationTables().filter((table) => !owners.has(table))).toEqual([]);
    expect(tableViolations()).toEqual([]);
  });

  it("the table rule fails on SQL naming another module's table (planted)", () => {
    const owners = tableOwners();
    const planted = `const sql = \`WITH stored AS (INSERT INTO idempotency_keys (key) SELECT key FROM input)
      SELECT * FROM evidence_events ev JOIN webhook_destinations d ON d.id = ev.id\`;`;
    expect(foreignTables('modules/evidence', planted, owners)).toEqual([
      'idempotency_keys (owned by platform/idempotency)',
      'webhook_destinations (owned by modules/webhooks)',
    ]);
    // Its own table, a table in a comment, and a CTE or function after FROM are no violation.
    const clean = `// copies rows from jobs
      const sql = \`-- reads from webhook_events
      INSERT INTO evidence_events (id) SELECT id FROM unnest($1::text[]) AS e(id)\`;`;
    expect(foreignTables('modules/evidence', clean, owners)).toEqual([]);
    expect(foreignTables('platform/jobs', "sql.raw('INSERT INTO jobs (id) VALUES ($1)')", owners)).toEqual(
      [],
    );
  });

  it('the table rule reads SQL as PostgreSQL does: a comma join, USING, a subquery, a fragment (planted)', () => {
    const owners = tableOwners();
    const commaJoin = 'sql`select e.id from ${evidenceEvents} e, channels c where c.id = e.channel_id`;';
    expect(foreignTables('modules/evidence', commaJoin, owners)).toEqual([
      'channels (owned by modules/channels)',
    ]);
    const using = `sql\`delete from \${exportsTable} x using evidence_events e where e.id = x.event_id\`;`;
    expect(foreignTables('modules/exports', using, owners)).toEqual([
      'evidence_events (owned by modules/evidence)',
    ]);
    const updateFrom =
      'sql`update ${jobs} j set run_at = now() from webhook_destinations, channels where j.id = $1`';
    expect(foreignTables('platform/jobs', updateFrom, owners)).toEqual([
      'channels (owned by modules/channels)',
      'webhook_destinations (owned by modules/webhooks)',
    ]);
    // A fragment (a CTE list, a WHERE clause with a subquery) is parsed inside the statement that holds it.
    const fragment = `return \`picked AS (SELECT id FROM \${events} WHERE id IN (SELECT event_id FROM ledger_pending)), \${more}\`;`;
    expect(foreignTables('modules/evidence', fragment, owners)).toEqual([
      'ledger_pending (owned by modules/ledger)',
    ]);
    // The comma join the older pattern missed: every name in the list is a table.
    expect(foreignTables('modules/evidence', 'sql`select 1 from evidence_events, jobs`', owners)).toEqual([
      'jobs (owned by platform/jobs)',
    ]);
  });

  it('no cycles between modules and platform parts', () => {
    expect(cycles(moduleGraph(sourceEdges()))).toEqual([]);
  });

  it('the cycle rule fails on modules that import each other (planted)', () => {
    // The cycle bootstrap made when it lived in organizations: organizations -> api-keys -> organizations.
    const planted = moduleGraph([
      ['modules/organizations/bootstrap.ts', 'modules/api-keys/api-keys.service.ts'],
      ['modules/api-keys/api-keys.service.ts', 'modules/organizations/organizations.service.ts'],
      ['modules/api-keys/api-keys.service.ts', 'platform/db/store.ts'],
    ]);
    expect(cycles(planted)).toEqual(['modules/api-keys <-> modules/organizations']);
    const longer = moduleGraph([
      ['modules/a/a.ts', 'modules/b/b.service.ts'],
      ['modules/b/b.ts', 'platform/c/c.ts'],
      ['platform/c/c.ts', 'modules/a/a.service.ts'],
      ['modules/d/d.ts', 'modules/a/a.service.ts'],
    ]);
    expect(cycles(longer)).toEqual(['modules/a <-> modules/b <-> platform/c']);
    // Imports inside one module, and a chain without a way back, are no cycle.
    expect(
      cycles(
        moduleGraph([
          ['modules/a/x.ts', 'modules/a/y.ts'],
          ['modules/a/y.ts', 'modules/b/b.ts'],
        ]),
      ),
    ).toEqual([]);
  });

  it('the console reaches src only through src/shared, which imports nothing else', () => {
    expect(consoleViolations(consoleEdges())).toEqual([]);
  });

  it('the console rule fails on an import into a module or out of src/shared (planted)', () => {
    expect(
      consoleViolations([
        ['console/src/views/scans.ts', 'src/modules/scans/matching.ts'],
        ['console/src/views/scans.ts', 'src/shared/scans-matching.ts'],
        ['console/src/views/scans.ts', 'clients/typescript/src/schema.d.ts'],
        ['src/shared/scans-matching.ts', 'src/platform/ids.ts'],
        ['src/shared/scans-matching.ts', 'drizzle-orm'],
        ['src/shared/scans-matching.ts', 'src/shared/other.ts'],
      ]),
    ).toEqual([
      'console/src/views/scans.ts -> src/modules/scans/matching.ts: the console imports from src only through src/shared',
      'src/shared/scans-matching.ts -> src/platform/ids.ts: src/shared imports nothing outside itself',
      'src/shared/scans-matching.ts -> drizzle-orm: src/shared imports nothing outside itself',
    ]);
  });

  it("another unit's *.tables.ts is imported only from a *.tables.ts (known exceptions listed)", () => {
    expect(tablesImportViolations(sourceEdges()).sort()).toEqual(
      KNOWN_TABLES_IMPORTS.map((known) => known.rule),
    );
  });

  it("the tables-import rule fails on a repo importing another module's tables (planted)", () => {
    expect(
      tablesImportViolations([
        ['modules/exports/exports.repo.ts', 'modules/evidence/evidence.tables.ts'],
        ['modules/exports/exports.tables.ts', 'modules/evidence/evidence.tables.ts'],
        ['modules/exports/exports.repo.ts', 'modules/exports/exports.tables.ts'],
        ['modules/exports/exports.repo.ts', 'modules/evidence/evidence.sql.ts'],
      ]),
    ).toEqual(['modules/exports/exports.repo.ts -> modules/evidence/evidence.tables.ts']);
  });

  it("a service re-exports only its module's public parts (known exceptions listed)", () => {
    expect(serviceReexportViolations()).toEqual(KNOWN_SERVICE_REEXPORTS.map((known) => known.rule));
  });

  it('the re-export rule fails on a service passing on a repo or helper (planted)', () => {
    const planted = `import { presentRow, type Row } from './things.repo.ts';
import { THING_SCHEMA } from './things.schemas.ts';
export { helper } from './helpers.ts';
export type { ThingBody } from './things.schemas.ts';
export { presentRow, THING_SCHEMA };
export type { Row };`;
    expect(serviceReexports('modules/things/things.service.ts', planted).sort()).toEqual([
      'modules/things/things.service.ts re-exports modules/things/helpers.ts',
      'modules/things/things.service.ts re-exports modules/things/things.repo.ts',
    ]);
    // Only services are held to it.
    expect(serviceReexports('modules/things/things.repo.ts', planted)).toEqual([]);
  });

  it('no module touches a database driver: the store is the one path', () => {
    expect(driverViolations()).toEqual([]);
  });

  it('the driver rule fails on a module querying the pool or importing pg (planted)', () => {
    expect(driverUses(`import type pg from 'pg';\nawait store.pool.query(TEXT);`)).toEqual([
      'imports a driver',
      "reaches the store's driver (.pool, .pglite)",
    ]);
    expect(driverUses('if (store.pglite) await store.pglite.query(TEXT);')).toEqual([
      "reaches the store's driver (.pool, .pglite)",
    ]);
    expect(driverUses(`// store.pool in a comment\nawait store.statement(STATEMENT, values);`)).toEqual([]);
  });

  it('route files reach the database only through request.db, never the store itself', () => {
    expect(routeStoreViolations()).toEqual([]);
    expect(sourceFiles(SRC).filter((file) => file.endsWith('.routes.ts')).length).toBeGreaterThan(20);
  });

  it('the route rule fails on a handler reading store.db or opening store.tx (planted)', () => {
    const planted = `async (request) => envelope(await exportsRepo.list(deps.store.db, principalOf(request)));
      await store.tx((tx) => audit.record(tx, context, entry));`;
    expect(routeStoreUses(planted)).toEqual(['store.db', 'store.tx']);
    expect(routeStoreUses('// not store.db: request.db\nawait exports.get(request.db, scope, id);')).toEqual(
      [],
    );
  });

  it('the top-level parts import each other only along the allowed edges', () => {
    expect(edgeViolations(treeEdges())).toEqual([]);
  });

  it('the edge rule fails on src reaching into the SDK, the SDK into a module, the console into the SDK (planted)', () => {
    expect(
      edgeViolations([
        ['src/modules/sites/sdk-bundle.ts', 'sdk/build.ts'],
        ['sdk/build.ts', 'src/modules/sites/sdk-bundle.ts'],
        ['console/src/views/scans.ts', 'sdk/src/consent.ts'],
        ['packages/react/src/index.ts', 'src/platform/ids.ts'],
        // Allowed: along ALLOWED_EDGES, or inside one part.
        ['sdk/build.ts', 'src/platform/http/bundle-encodings.ts'],
        ['console/src/views/tcf-preview.ts', 'sdk/src/tcf/layers/disclosure.ts'],
        ['test/sdk/bundle.test.ts', 'sdk/build.ts'],
        ['src/app.ts', 'src/services.ts'],
      ]),
    ).toEqual([
      'src/modules/sites/sdk-bundle.ts -> sdk/build.ts: not an allowed edge between src and sdk',
      'sdk/build.ts -> src/modules/sites/sdk-bundle.ts: not an allowed edge between sdk and src',
      'console/src/views/scans.ts -> sdk/src/consent.ts: not an allowed edge between console and sdk',
      'packages/react/src/index.ts -> src/platform/ids.ts: not an allowed edge between packages and src',
    ]);
  });

  it('tests live in test/, not in src/', () => {
    const tests = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return tests(full);
        return /\.test\.tsx?$/.test(entry.name) ? [relative(full)] : [];
      });
    expect(tests(SRC)).toEqual([]);
  });

  it('the table rule reads every file: a COPY in an export, a gauge in platform, SQL in the wiring (planted)', () => {
    const owners = tableOwners();
    const copy = 'const text = `COPY (SELECT e.id FROM evidence_events e) TO STDOUT`;';
    expect(foreignTables('modules/exports', copy, owners)).toEqual([
      'evidence_events (owned by modules/evidence)',
    ]);
    expect(
      foreignTables('platform/metrics', 'sql`select min(recorded_at) from ledger_pending`', owners),
    ).toEqual(['ledger_pending (owned by modules/ledger)']);
    expect(foreignTables('cli/commands.ts', 'sql`select * from jobs`', owners)).toEqual([
      'jobs (owned by platform/jobs)',
    ]);
  });

  it('reads the imports it checks (the rule cannot pass by reading nothing)', () => {
    const services = importsOf(path.join(SRC, 'services.ts'));
    expect(services.some((to) => to.startsWith('modules/'))).toBe(true);
    expect(sourceFiles(path.join(SRC, 'platform')).length).toBeGreaterThan(20);
    expect(tableOwners().get('idempotency_keys')).toBe('platform/idempotency');
    expect(tableOwners().get('consent_analytics_daily')).toBe('modules/analytics');
    expect(migrationTables().length).toBeGreaterThan(25);
    expect(sqlFiles().map(relative)).toEqual(
      expect.arrayContaining([
        'modules/evidence/consent-write.sql.ts',
        'modules/exports/evidence-copy.ts',
        'platform/metrics/metrics.ts',
        'cli/commands.ts',
      ]),
    );
    expect(tablesImportViolations(sourceEdges()).length).toBeGreaterThan(0);
    expect(treeEdges()).toContainEqual([
      'console/src/views/tcf-preview.ts',
      'sdk/src/tcf/layers/disclosure.ts',
    ]);
    expect(treeEdges().filter(([from]) => from.startsWith('test/')).length).toBeGreaterThan(100);
    expect(moduleGraph(sourceEdges()).get('modules/api-keys')).toContain('modules/organizations');
    expect(consoleEdges()).toContainEqual(['console/src/views/scans.ts', 'src/shared/scans-matching.ts']);
  });
});

// store-independent: reads source files only
