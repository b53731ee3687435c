import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The import rules, read from the source itself:
 * - `src/platform/**` knows no feature: it imports nothing from `src/modules`, nor the wiring
 *   (`app.ts`, `services.ts`, `worker.ts`, `main.ts`, `cli/`).
 * - `src/config.ts` imports no module.
 * - A module reaches another module only through that module's services (`<b>/*.service.ts`,
 *   which may re-export the few helpers and types it shares), its public schemas
 *   (`<b>/*.schemas.ts`) or its tables (`<b>/*.tables.ts`: the database schema is one, and
 *   drizzle needs the other table for a foreign key or a join), or its SQL fragments
 *   (`<b>/*.sql.ts`: SQL over its tables that another module's statement composes). Repos,
 *   presenters and helpers stay private to their module.
 * - A module does not import the wiring either (it is given its dependencies).
 * - No cycles between modules and platform parts: in the graph of their imports (type imports
 *   too), no two reach each other. Code that needs two modules that each stand alone (bootstrap
 *   needs organizations and api-keys) lives in a place that depends on both (`src/cli`).
 * - The console (`console/`, bundled for the browser) imports from `src/` only what is in
 *   `src/shared/`, and `src/shared/` imports nothing outside itself (no package either): rules both
 *   apply live there, not in a module the console would reach into.
 *
 * Every table has one owning module (or platform part): the one whose `*.tables.ts` declares it,
 * or, for a table made only by a SQL migration, the one MIGRATION_TABLE_OWNERS names. A module's
 * SQL text (`*.sql.ts` and `*.repo.ts`) names only its own tables; SQL over another module's table
 * comes from that owner, as a fragment of its `*.sql.ts` composed into the statement, or as its
 * drizzle table object (`${channels}`), never as the table's name written by someone else.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const CONSOLE = path.join(ROOT, 'console/src');
const WIRING = ['app.ts', 'services.ts', 'worker.ts', 'main.ts'];

/** Tables created only by SQL migrations (no drizzle table), and the module that owns each. */
const MIGRATION_TABLE_OWNERS: Record<string, string> = {
  consent_analytics_daily: 'modules/analytics',
  consent_analytics_purposes: 'modules/analytics',
  consent_state_backfill: 'modules/evidence',
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

function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = path.relative(SRC, file).split(path.sep).join('/');
    for (const to of importsOf(file)) {
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
        const [top, b, name] = to.split('/');
        if (top !== 'modules' || b === a) continue;
        if (!/\.(service|schemas|tables|sql)\.ts$/.test(name ?? '')) {
          found.push(
            `${from} -> ${to}: reach module ${b} through its services, schemas, tables or SQL fragments`,
          );
        }
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
 * The tables of other owners that `text` (a file of `unit`) names in SQL: a table name after FROM,
 * JOIN, INTO, UPDATE, TABLE or REFERENCES. Names that are no table (a CTE, `unnest`) are skipped.
 */
function foreignTables(unit: string, text: string, owners: Map<string, string>): string[] {
  const found: string[] = [];
  const reference = /\b(?:from|join|into|update|table|references)\s+"?([a-z_][a-z0-9_]*)"?/gi;
  for (const m of withoutComments(text).matchAll(reference)) {
    const owner = owners.get(m[1]);
    if (owner && owner !== unit) found.push(`${m[1]} (owned by ${owner})`);
  }
  return found;
}

/** The SQL files (`*.sql.ts`, `*.repo.ts`) of modules and platform parts. */
function sqlFiles(): string[] {
  return sourceFiles(SRC).filter((file) => unitOf(relative(file)) && /\.(sql|repo)\.ts$/.test(file));
}

function tableViolations(): string[] {
  const owners = tableOwners();
  return sqlFiles().flatMap((file) => {
    const rel = relative(file);
    return foreignTables(unitOf(rel)!, fs.readFileSync(file, 'utf8'), owners).map(
      (table) => `${rel} names ${table}: take that SQL from its owner's fragment`,
    );
  });
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
  it('platform imports no module, config imports no module, modules meet only through services', () => {
    expect(violations()).toEqual([]);
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
    expect(foreignTables('platform/jobs', 'INSERT INTO jobs (id) VALUES ($1)', owners)).toEqual([]);
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

  it('reads the imports it checks (the rule cannot pass by reading nothing)', () => {
    const services = importsOf(path.join(SRC, 'services.ts'));
    expect(services.some((to) => to.startsWith('modules/'))).toBe(true);
    expect(sourceFiles(path.join(SRC, 'platform')).length).toBeGreaterThan(20);
    expect(tableOwners().get('idempotency_keys')).toBe('platform/idempotency');
    expect(tableOwners().get('consent_analytics_daily')).toBe('modules/analytics');
    expect(migrationTables().length).toBeGreaterThan(25);
    expect(sqlFiles().map(relative)).toContain('modules/evidence/consent-write.sql.ts');
    expect(moduleGraph(sourceEdges()).get('modules/api-keys')).toContain('modules/organizations');
    expect(consoleEdges()).toContainEqual(['console/src/views/scans.ts', 'src/shared/scans-matching.ts']);
  });
});

// store-independent: reads source files only
