import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import type { EvidenceRow } from '../../src/modules/evidence/evidence.tables.ts';
import type { LedgerService } from '../../src/modules/ledger/ledger.service.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { rawSql, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  independentLeafHash,
  independentSignatureVerifies,
  insertEvents,
  newSigningKey,
  type Scope,
} from './ledger-helpers.ts';
import { mth, verifyConsistencyProof, verifyInclusionProof } from './rfc9162.ts';

const signingKey = newSigningKey();
const rawKey = Buffer.from(signingKey.publicKey, 'base64');
let t: TestApp;
let ledger: LedgerService;

beforeAll(async () => {
  t = await startTestApp({ env: { LEDGER_SIGNING_KEY: signingKey.pem } });
  ledger = t.app.services.ledger;
});
afterAll(() => t.close());

async function freshScope(environment: 'test' | 'live' = 'live'): Promise<Scope> {
  return { organizationId: (await t.tenant()).organizationId, environment };
}

const leafOf = (row: EvidenceRow) => independentLeafHash(evidenceEventBody(row, 'unmasked'));

/** Proves every given event against the newest head with the independent verifier; returns the head. */
async function expectAllProved(scope: Scope, rows: EvidenceRow[], expectedOrder?: EvidenceRow[]) {
  const prover = (await ledger.prover(scope))!;
  const head = prover.treeHead;
  expect(independentSignatureVerifies(head, rawKey)).toBe(true);
  if (expectedOrder) expect(head.rootHash).toBe(mth(expectedOrder.map(leafOf)));
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const proofs = await prover.prove(chunk.map((r) => r.id));
    for (const row of chunk) {
      const proof = proofs.get(row.id);
      expect(proof, row.id).toBeDefined();
      expect(
        verifyInclusionProof(proof!.leafIndex, head.treeSize, leafOf(row), proof!.auditPath, head.rootHash),
      ).toBe(true);
    }
  }
  return head;
}

async function expectNotSealed(scope: Scope, id: string) {
  const error = await ledger.inclusionProof(t.store.scope(null), scope, id).catch((e) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('evidence_not_sealed');
}

// These tests seal and prove thousands of leaves through the database: real work that takes tens of
// seconds on a loaded two-core machine, so they get more than the suite's default 30 s.
describe('ledger on the store', { timeout: 180_000 }, () => {
  it('proves every leaf of logs of sizes 1 to 70, and consistency between every pair of sizes up to 40', async () => {
    const scope = await freshScope();
    const rows: EvidenceRow[] = [];
    const roots: string[] = [];
    const from = Date.now() - 3600_000;
    for (let n = 1; n <= 70; n++) {
      rows.push(...(await insertEvents(t.store, scope, 1, { from: new Date(from + n * 1000) })));
      const head = await expectAllProved(scope, rows, rows);
      expect(head.treeSize).toBe(n);
      roots[n] = head.rootHash;
    }
    for (let m = 1; m <= 40; m++) {
      for (let n = m; n <= 40; n++) {
        const { proof } = await ledger.consistencyProof(t.store.scope(null), scope, m, n);
        expect(verifyConsistencyProof(m, n, roots[m], roots[n], proof), `${m}→${n}`).toBe(true);
      }
    }
    // Every head of the growth is listed and signed.
    const heads = await ledger.treeHeads(t.store.scope(null), scope, 100, null);
    expect(heads.map((h) => h.treeSize)).toEqual(Array.from({ length: 70 }, (_, i) => 70 - i));
  });

  it('proves each of 3 000 bulk-inserted events (sealed in bounded batches)', async () => {
    const scope = await freshScope();
    const rows = await insertEvents(t.store, scope, 3000, { from: new Date(Date.now() - 86_400_000) });
    const sealed = await ledger.sealer.sealLog(scope);
    expect(sealed.appended).toBe(3000);
    expect(sealed.head?.treeSize).toBe(3000);
    await expectAllProved(scope, rows, rows);
    // And through the endpoint's code path, a few of them.
    for (const row of [rows[0], rows[1234], rows[2999]]) {
      const proof = await ledger.inclusionProof(t.store.scope(null), scope, row.id);
      expect(proof.leafHash).toBe(row.receiptHash);
      expect(
        verifyInclusionProof(proof.leafIndex, proof.treeSize, leafOf(row), proof.auditPath, proof.rootHash),
      ).toBe(true);
    }
  });

  it('completes correctly after a crash between appending leaves and signing', async () => {
    const scope = await freshScope();
    const first = await insertEvents(t.store, scope, 10, { from: new Date(Date.now() - 600_000) });
    // Step 1 alone, as if the process died before signing.
    expect(await ledger.sealer.appendBatch(scope)).toBe(10);
    await expectNotSealed(scope, first[0].id);
    expect(await ledger.prover(scope).then((p) => p?.treeHead.treeSize)).toBe(10);

    const second = await insertEvents(t.store, scope, 5, { from: new Date(Date.now() - 300_000) });
    expect(await ledger.sealer.appendBatch(scope)).toBe(5);
    const head15 = await expectAllProved(scope, [...first, ...second], [...first, ...second]);
    expect(head15.treeSize).toBe(15);

    // A crash after a head exists: old proofs stay valid against the old head, new events wait.
    const third = await insertEvents(t.store, scope, 3, { from: new Date(Date.now() - 100_000) });
    await ledger.sealer.appendBatch(scope);
    await expectNotSealed(scope, third[0].id);
    const old = await ledger.inclusionProof(t.store.scope(null), scope, first[3].id);
    expect(old.treeSize).toBe(15);
    expect(verifyInclusionProof(old.leafIndex, 15, leafOf(first[3]), old.auditPath, head15.rootHash)).toBe(
      true,
    );

    const { logs } = await ledger.sealer.sealAll();
    expect(logs).toBeGreaterThanOrEqual(1);
    const head18 = await expectAllProved(
      scope,
      [...first, ...second, ...third],
      [...first, ...second, ...third],
    );
    expect(head18.treeSize).toBe(18);
    const { proof } = await ledger.consistencyProof(t.store.scope(null), scope, 15, 18);
    expect(verifyConsistencyProof(15, 18, head15.rootHash, head18.rootHash, proof)).toBe(true);
  });

  it('keeps proofs of purged events valid after a retention purge', async () => {
    const scope = await freshScope('test');
    const old = await insertEvents(t.store, scope, 4, {
      from: new Date(t.clock.now().getTime() - 3 * 86_400_000),
    });
    const recent = await insertEvents(t.store, scope, 2, {
      from: new Date(t.clock.now().getTime() - 60_000),
    });
    const before = await expectAllProved(scope, [...old, ...recent], [...old, ...recent]);
    await t.app.services.evidence.purgeExpired();
    const purged = await rawSql(t.store).execute(
      sql`select count(*)::int as n from evidence_events where organization_id = ${scope.organizationId} and purged_at is not null`,
    );
    expect((purged as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(4);

    // The purged content is gone, but the leaf hash, kept by the ledger, still proves against the head.
    const proof = await ledger.inclusionProof(t.store.scope(null), scope, old[0].id);
    expect(proof.leafHash).toBe(old[0].receiptHash);
    expect(
      verifyInclusionProof(proof.leafIndex, proof.treeSize, leafOf(old[0]), proof.auditPath, before.rootHash),
    ).toBe(true);
    const later = await insertEvents(t.store, scope, 3);
    const after = await expectAllProved(scope, [...old, ...recent, ...later], [...old, ...recent, ...later]);
    const { proof: consistency } = await ledger.consistencyProof(t.store.scope(null), scope, 6, 9);
    expect(verifyConsistencyProof(6, 9, before.rootHash, after.rootHash, consistency)).toBe(true);
  });

  it('appends a late arrival (recorded before the last sealed leaf) after what was already sealed', async () => {
    const scope = await freshScope();
    const sealed = await insertEvents(t.store, scope, 3, { from: new Date(Date.now() - 10_000) });
    await ledger.sealer.sealLog(scope);
    const late = await insertEvents(t.store, scope, 1, { from: new Date(Date.now() - 3600_000) });
    await ledger.sealer.sealLog(scope);
    expect((await ledger.inclusionProof(t.store.scope(null), scope, late[0].id)).leafIndex).toBe(3);
    await expectAllProved(scope, [...sealed, ...late], [...sealed, ...late]);
  });

  it('lets concurrent sealers of one log produce one consistent log (advisory lock)', async () => {
    const scope = await freshScope();
    const rows = await insertEvents(t.store, scope, 2500, { from: new Date(Date.now() - 7200_000) });
    await Promise.all([
      ledger.sealer.sealAll(),
      ledger.sealer.sealLog(scope),
      ledger.sealer.sealLog(scope, { batch: 300 }),
    ]);
    await ledger.sealer.sealLog(scope);
    const head = await expectAllProved(scope, rows, rows);
    expect(head.treeSize).toBe(2500);
  });
});
