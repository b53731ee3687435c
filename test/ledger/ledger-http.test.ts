import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import {
  independentLeafHash,
  independentSignatureVerifies,
  newSigningKey,
  proofVerifies,
} from './ledger-helpers.ts';
import { flipHex, verifyConsistencyProof } from './rfc9162.ts';

const signingKey = newSigningKey();
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
/** Real events recorded over HTTP, with the raw subject id each was recorded for. */
const recorded: Array<{ id: string; subjectId: string; receipt: string }> = [];

/** Runs the worker until the ledger seal has run (the recurring task is due every LEDGER_SEAL_SECONDS). */
async function sealWithWorker(until: () => Promise<boolean>) {
  for (let attempt = 0; attempt < 10; attempt++) {
    t.clock.advance(5_000);
    await t.worker.runDue();
    if (await until()) return;
  }
  throw new Error('the ledger.seal task did not seal');
}

/** The event as an export shows it: the GET /v1/evidence/:id body with the pseudonym unmasked. */
async function exportedEvent(id: string, subjectId: string) {
  const res = await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  const pseudonym = await t.app.services.evidence.pseudonymize(tenant.organizationId, subjectId);
  return { ...res.body.data, subject: { pseudonym } };
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  for (let i = 0; i < 5; i++) {
    t.clock.advance(1_000);
    const subjectId = `visitor-${i}`;
    const data = await recordConsent(t, site, { subjectId });
    recorded.push({ id: data.id, subjectId, receipt: data.receipt.hash });
  }
});
afterAll(() => t.close());

describe('ledger over HTTP with real events', () => {
  it('answers 409 evidence_not_sealed before the sealer ran, then proves every event', async () => {
    const early = await t.http.get(`/v1/evidence/${recorded[0].id}/proof`, { key: tenant.testKey });
    expectProblemShape(early, 409, 'evidence_not_sealed');

    const proofOf = (id: string) => t.http.get(`/v1/evidence/${id}/proof`, { key: tenant.testKey });
    await sealWithWorker(async () => (await proofOf(recorded[4].id)).status === 200);

    const keys = await t.http.get('/v1/public/ledger-keys');
    expect(keys.status).toBe(200);
    const published = keys.body.data as Array<{ keyId: string; algorithm: string; publicKey: string }>;
    expect(published.map((k) => k.publicKey)).toContain(signingKey.publicKey);

    for (const event of recorded) {
      const res = await proofOf(event.id);
      expect(res.status, res.text).toBe(200);
      const proof = res.body.data;
      const leaf = independentLeafHash(await exportedEvent(event.id, event.subjectId));
      expect(leaf).toBe(event.receipt);
      expect(proof.leafHash).toBe(leaf);
      expect(proof.treeSize).toBeGreaterThanOrEqual(5);
      expect(proofVerifies(leaf, proof)).toBe(true);
      // The head is the one the proof is against, and its signature checks with the published key.
      expect(proof.treeHead).toMatchObject({
        logId: proof.logId,
        treeSize: proof.treeSize,
        rootHash: proof.rootHash,
      });
      expect(proof.treeHead.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const key = published.find((k) => k.keyId === proof.treeHead.keyId)!;
      expect(independentSignatureVerifies(proof.treeHead, Buffer.from(key.publicKey, 'base64'))).toBe(true);
      expect(
        independentSignatureVerifies(proof.treeHead, Buffer.from(newSigningKey().publicKey, 'base64')),
      ).toBe(false);
      expect(
        independentSignatureVerifies(
          { ...proof.treeHead, treeSize: proof.treeSize + 1 },
          Buffer.from(key.publicKey, 'base64'),
        ),
      ).toBe(false);

      // A flipped byte anywhere in the event, the path or the root fails the check.
      const tamperedEvent = {
        ...(await exportedEvent(event.id, event.subjectId)),
        decisions: { analytics: 'denied' },
      };
      expect(proofVerifies(independentLeafHash(tamperedEvent), proof)).toBe(false);
      if (proof.auditPath.length > 0) {
        expect(
          proofVerifies(leaf, {
            ...proof,
            auditPath: [flipHex(proof.auditPath[0], 3), ...proof.auditPath.slice(1)],
          }),
        ).toBe(false);
      }
      expect(proofVerifies(leaf, { ...proof, rootHash: flipHex(proof.rootHash, 63) })).toBe(false);
    }
  });

  it('lists signed tree heads newest first with cursors, and proves consistency between them', async () => {
    // A sixth event makes a second head.
    t.clock.advance(1_000);
    const sixth = await recordConsent(t, site, { subjectId: 'visitor-6' });
    await t.app.services.ledger.sealer.sealAll();
    const proof = await t.http.get(`/v1/evidence/${sixth.id}/proof`, { key: tenant.testKey });
    expect(proof.status, proof.text).toBe(200);

    const first = await t.http.get('/v1/evidence/tree-heads?limit=1', { key: tenant.testKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.meta.nextCursor).toEqual(expect.any(String));
    const rest = await t.http.get(`/v1/evidence/tree-heads?limit=100&cursor=${first.body.meta.nextCursor}`, {
      key: tenant.testKey,
    });
    expect(rest.status, rest.text).toBe(200);
    const heads = [...first.body.data, ...rest.body.data];
    expect(heads.length).toBeGreaterThanOrEqual(2);
    const sizes = heads.map((h) => h.treeSize);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(rest.body.meta.nextCursor).toBeNull();

    const [newer, older] = heads;
    const res = await t.http.get(
      `/v1/evidence/consistency?first=${older.treeSize}&second=${newer.treeSize}`,
      {
        key: tenant.testKey,
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ first: older.treeSize, second: newer.treeSize });
    const ok = verifyConsistencyProof(
      older.treeSize,
      newer.treeSize,
      older.rootHash,
      newer.rootHash,
      res.body.data.proof,
    );
    expect(ok).toBe(true);
    const forged = verifyConsistencyProof(
      older.treeSize,
      newer.treeSize,
      flipHex(older.rootHash),
      newer.rootHash,
      res.body.data.proof,
    );
    expect(forged).toBe(false);

    const bad = await t.http.get('/v1/evidence/tree-heads?cursor=nope', { key: tenant.testKey });
    expectProblemShape(bad, 400, 'invalid_cursor');
  });

  it('refuses consistency sizes outside 1 ≤ first ≤ second ≤ the newest tree size with 422', async () => {
    const heads = await t.http.get('/v1/evidence/tree-heads', { key: tenant.testKey });
    const size = heads.body.data[0].treeSize as number;
    for (const query of [
      'first=0&second=1',
      `first=2&second=1`,
      `first=1&second=${size + 1}`,
      'first=1',
      'first=a&second=2',
      'first=1&second=2&extra=1',
    ]) {
      const res = await t.http.get(`/v1/evidence/consistency?${query}`, { key: tenant.testKey });
      expectProblemShape(res, 422, 'validation_failed');
    }
    const same = await t.http.get(`/v1/evidence/consistency?first=${size}&second=${size}`, {
      key: tenant.testKey,
    });
    expect(same.body.data).toEqual({ first: size, second: size, proof: [] });
    // The live log of the same organization has no tree head yet.
    const live = await t.http.get('/v1/evidence/consistency?first=1&second=1', { key: tenant.liveKey });
    expectProblemShape(live, 422, 'validation_failed');
  });

  it('keeps static segments apart from /v1/evidence/:id', async () => {
    const heads = await t.http.get('/v1/evidence/tree-heads', { key: tenant.testKey });
    expect(heads.status).toBe(200);
    expect(Array.isArray(heads.body.data)).toBe(true);
    const consistency = await t.http.get('/v1/evidence/consistency?first=1&second=1', {
      key: tenant.testKey,
    });
    expect(consistency.body.data).toMatchObject({ first: 1, second: 1 });
    const event = await t.http.get(`/v1/evidence/${recorded[0].id}`, { key: tenant.testKey });
    expect(event.body.data.id).toBe(recorded[0].id);
  });

  it('isolates organizations and environments (404), and checks key and scope first', async () => {
    const other = await t.tenant();
    const id = recorded[0].id;
    expectProblemShape(
      await t.http.get(`/v1/evidence/${id}/proof`, { key: other.testKey }),
      404,
      'not_found',
    );
    expectProblemShape(
      await t.http.get(`/v1/evidence/${id}/proof`, { key: tenant.liveKey }),
      404,
      'not_found',
    );
    expectProblemShape(
      await t.http.get('/v1/evidence/evt_nope/proof', { key: tenant.testKey }),
      404,
      'not_found',
    );
    const otherHeads = await t.http.get('/v1/evidence/tree-heads', { key: other.testKey });
    expect(otherHeads.body.data).toEqual([]);

    const noScope = await tenant.key(['channels:read']);
    for (const path of [
      `/v1/evidence/${id}/proof`,
      '/v1/evidence/tree-heads',
      '/v1/evidence/consistency?first=1&second=1',
    ]) {
      expectProblemShape(await t.http.get(path), 401, 'authentication_required');
      expectProblemShape(await t.http.get(path, { key: 'svc_test_wrong' }), 401, 'invalid_api_key');
      const forbidden = await t.http.get(path, { key: noScope.secret });
      expectProblemShape(forbidden, 403, 'insufficient_scope');
      expect(forbidden.body.detail).toContain('evidence:read');
    }
    const analyst = await tenant.key(['evidence:read'], { role: 'analyst' });
    expect((await t.http.get(`/v1/evidence/${id}/proof`, { key: analyst.secret })).status).toBe(200);
  });

  it('serves the auditor page and documents the routes in OpenAPI', async () => {
    const page = await t.http.get('/docs/ledger');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('1b7d10b7bdcf854aa6b91a5b6e0fc32115650e4bfdc9acf41443075dcf3c7391');
    const openapi = await t.http.get('/v1/openapi.json');
    for (const path of [
      '/v1/public/ledger-keys',
      '/v1/evidence/{id}/proof',
      '/v1/evidence/tree-heads',
      '/v1/evidence/consistency',
    ]) {
      expect(openapi.body.paths[path], path).toBeDefined();
    }
  });
});
