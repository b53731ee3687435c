import { PgDatabase } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm/sql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerService } from '../../src/modules/ledger/ledger.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { insertEvents, newSigningKey, type Scope } from './ledger-helpers.ts';

/**
 * Proofs and seals must read O(log n) and O(batch) rows whatever the planner knows. These run where
 * tables have no statistics (PGlite never gathers any; on PostgreSQL a fresh or fast-grown table has
 * none until autoanalyze), which is where a list of keys or an ORDER BY … LIMIT gets planned as a
 * scan of a log's whole index prefix: correct results, O(n) cost, so only plans can catch it.
 */

interface Statement {
  sql: string;
  params: unknown[];
}

let t: TestApp;
let ledger: LedgerService;

beforeAll(async () => {
  t = await startTestApp({ env: { LEDGER_SIGNING_KEY: newSigningKey().pem } });
  ledger = t.app.services.ledger;
});
afterAll(() => t.close());

/** Every statement sent through drizzle's `execute` (raw SQL, which the ledger's hot paths use) while fn runs. */
async function captured(fn: () => Promise<unknown>): Promise<Statement[]> {
  const statements: Statement[] = [];
  const original = PgDatabase.prototype.execute;
  PgDatabase.prototype.execute = function (this: PgDatabase<never>, query: SQL) {
    const { sql, params } = (
      this as unknown as { dialect: { sqlToQuery(q: SQL): Statement } }
    ).dialect.sqlToQuery(query);
    statements.push({ sql, params });
    return original.call(this, query);
  } as typeof original;
  try {
    await fn();
  } finally {
    PgDatabase.prototype.execute = original;
  }
  return statements;
}

async function explain(statement: Statement, options: string) {
  const text = `explain (${options}, format json) ${statement.sql}`;
  const result = t.store.pool
    ? await t.store.pool.query(text, statement.params)
    : await t.store.pglite!.query(text, statement.params);
  return (result.rows[0] as Record<string, Array<{ Plan: PlanNode }>>)['QUERY PLAN'][0].Plan;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/** Rows a statement read from the ledger's tables, kept or filtered out, as it actually ran. */
async function ledgerRowsRead(statement: Statement): Promise<number> {
  const plan = await explain(statement, 'analyze');
  let rows = 0;
  for (const node of nodesOf(plan)) {
    if (!node['Relation Name']?.startsWith('ledger_')) continue;
    const seen =
      (node['Actual Rows'] ?? 0) +
      (node['Rows Removed by Filter'] ?? 0) +
      (node['Rows Removed by Index Recheck'] ?? 0);
    rows += seen * (node['Actual Loops'] ?? 1);
  }
  return rows;
}

const readOnly = (statements: Statement[]) => statements.filter((s) => /^\s*select\b/i.test(s.sql));

describe('ledger query plans without statistics', { timeout: 180_000 }, () => {
  const leaves = 3000;
  let scope: Scope;
  let ids: string[];

  beforeAll(async () => {
    scope = { organizationId: (await t.tenant()).organizationId, environment: 'live' };
    const rows = await insertEvents(t.store, scope, leaves, { from: new Date(Date.now() - 86_400_000) });
    ids = rows.map((r) => r.id);
    await ledger.sealer.sealLog(scope);
  });

  it('proofs read O(log n) rows, not the log', async () => {
    const prover = (await ledger.prover(scope))!;
    const statements = await captured(async () => {
      for (const i of [0, 1, 1234, leaves - 1])
        await ledger.inclusionProof(t.store.scope(null), scope, ids[i]);
      await ledger.consistencyProof(t.store.scope(null), scope, 1000, leaves);
      await ledger.consistencyProof(t.store.scope(null), scope, 17, 2049);
      await prover.prove([ids[5], ids[2500]]);
    });
    const reads = readOnly(statements);
    expect(reads.length).toBeGreaterThanOrEqual(12);
    // log2(3000) < 12 stored nodes and two leaf blocks of 16 per proof, with room to spare.
    for (const statement of reads) expect(await ledgerRowsRead(statement), statement.sql).toBeLessThan(100);
  });

  it('a seal walks the queue in order and dequeues by the batch range, not the whole queue', async () => {
    await insertEvents(t.store, scope, 2000, { from: new Date(Date.now() - 3600_000) });
    const statements = await captured(() => ledger.sealer.appendBatch(scope, 500));
    // The lock, the log's frontier: a few rows.
    for (const statement of readOnly(statements)) {
      expect(await ledgerRowsRead(statement), statement.sql).toBeLessThan(100);
    }
    const declare = statements.find((s) => /^\s*declare\b/i.test(s.sql))!;
    const cursorQuery = {
      ...declare,
      sql: declare.sql.replace(/^\s*declare\s+\w+\s+no scroll cursor for/i, ''),
    };
    // A cursor is planned for its first rows: the order index, no sort of the queue.
    const cursorPlan = await explain(
      { ...cursorQuery, sql: `declare plan_check cursor for ${cursorQuery.sql}` },
      'costs off',
    );
    expect(nodesOf(cursorPlan).map((n) => n['Node Type'])).not.toContain('Sort');
    expect(nodesOf(cursorPlan).some((n) => n['Index Name'] === 'ledger_pending_order_idx')).toBe(true);

    const append = statements.find((s) => /\bdelete from "ledger_pending"/i.test(s.sql))!;
    const dequeue = nodesOf(await explain(append, 'costs off')).filter(
      (n) => n['Index Name'] === 'ledger_pending_order_idx',
    );
    expect(dequeue.some((n) => n['Index Cond']?.includes('recorded_at'))).toBe(true);
  });
});
