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
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const WIRING = ['app.ts', 'services.ts', 'worker.ts', 'main.ts'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Relative imports and re-exports of a file, resolved to paths under src/ (`import('…')` too). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      path
        .relative(SRC, path.resolve(path.dirname(file), s))
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

describe('layering', () => {
  it('platform imports no module, config imports no module, modules meet only through services', () => {
    expect(violations()).toEqual([]);
  });

  it('reads the imports it checks (the rule cannot pass by reading nothing)', () => {
    const services = importsOf(path.join(SRC, 'services.ts'));
    expect(services.some((to) => to.startsWith('modules/'))).toBe(true);
    expect(sourceFiles(path.join(SRC, 'platform')).length).toBeGreaterThan(20);
  });
});
