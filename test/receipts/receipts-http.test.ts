import { createHash, createPublicKey, verify } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptStatement } from '../../src/modules/receipts/receipt-statement.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { independentSignatureVerifies, newSigningKey, proofVerifies } from '../ledger/ledger-helpers.ts';

const signingKey = newSigningKey();
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

/** The path and query of a receipt url (the test client prefixes the base URL). */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

async function sealUntil(until: () => Promise<boolean>) {
  for (let attempt = 0; attempt < 10; attempt++) {
    t.clock.advance(5_000);
    await t.worker.runDue();
    if (await until()) return;
  }
  throw new Error('the ledger.seal task did not seal');
}

function statementVerifies(receipt: Record<string, any>): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(signingKey.publicKey, 'base64').toString('base64url') },
    format: 'jwk',
  });
  return verify(null, receiptStatement(receipt), key, Buffer.from(receipt.signature.value, 'base64'));
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

describe('visitor receipts', () => {
  it('gives receipt.url in the 201, opens as JSON before sealing (proof null) and proves after', async () => {
    const subjectId = newSubjectId();
    const data = await recordConsent(t, site, { subjectId, language: 'de' });
    expect(data.receipt.url).toMatch(
      new RegExp(
        `^${t.config.baseUrl}/v1/public/receipts/${data.id}\\?token=org_[A-Za-z0-9]+\\.[A-Za-z0-9_-]{24}$`,
      ),
    );
    const token = new URL(data.receipt.url).searchParams.get('token') as string;
    // Only the token's hash is stored.
    const row = await t.app.services.evidence.get(
      t.store.scope(null),
      { organizationId: tenant.organizationId, environment: 'test' },
      data.id,
    );
    expect(row.receiptTokenHash).toBe(createHash('sha256').update(token).digest('hex'));

    const early = await t.http.get(pathOf(data.receipt.url), { headers: { accept: 'application/json' } });
    expect(early.status, early.text).toBe(200);
    expect(early.headers.get('cache-control')).toBe('no-store');
    expect(early.headers.get('referrer-policy')).toBe('no-referrer');
    const receipt = early.body.data;
    expect(receipt).toMatchObject({
      eventId: data.id,
      controller: {
        name: expect.any(String),
        privacyPolicyUrl: 'https://shop.example.com/privacy',
        privacyPolicyVersion: '2024-05',
      },
      channelId: site.channelId,
      recordedAt: data.recordedAt,
      configVersion: site.configVersion,
      language: 'de',
      purposes: [
        { key: 'necessary', name: 'Strictly necessary', legalBasis: expect.any(String), decision: 'granted' },
        { key: 'analytics', name: 'Statistik', legalBasis: expect.any(String), decision: 'granted' },
        { key: 'marketing', name: 'Marketing', legalBasis: expect.any(String), decision: 'denied' },
      ],
      leafHash: data.receipt.hash,
      proof: null,
    });
    expect(receipt.controller.name.length).toBeGreaterThan(0);
    expect(statementVerifies(receipt)).toBe(true);

    const pseudonym = await t.app.services.evidence.pseudonymize(tenant.organizationId, subjectId);
    for (const text of [early.text]) {
      expect(text).not.toContain(subjectId);
      expect(text).not.toContain(pseudonym);
      expect(text).not.toContain('psn_');
    }

    await sealUntil(async () => {
      const res = await t.http.get(pathOf(data.receipt.url), { headers: { accept: 'application/json' } });
      return res.body.data.proof !== null;
    });
    const sealed = (await t.http.get(pathOf(data.receipt.url), { headers: { accept: 'application/json' } }))
      .body.data;
    expect(sealed.proof).not.toBeNull();
    const { proof } = sealed;
    expect(proofVerifies(sealed.leafHash, { ...proof, rootHash: proof.treeHead.rootHash })).toBe(true);
    expect(independentSignatureVerifies(proof.treeHead, signingKey.publicKey)).toBe(true);
    expect(statementVerifies(sealed)).toBe(true);
    // A changed decision no longer matches the service's signature.
    const tampered = structuredClone(sealed);
    tampered.purposes[2].decision = 'granted';
    expect(statementVerifies(tampered)).toBe(false);
  });

  it('answers 404 not_found for a wrong, missing or other event’s token and for an unknown event', async () => {
    const a = await recordConsent(t, site);
    const b = await recordConsent(t, site);
    const tokenA = new URL(a.receipt.url).searchParams.get('token') as string;
    const accept = { accept: 'application/json' };
    const wrong = tokenA.slice(0, -2) + (tokenA.endsWith('AA') ? 'BB' : 'AA');
    for (const path of [
      `/v1/public/receipts/${a.id}?token=${encodeURIComponent(wrong)}`,
      `/v1/public/receipts/${a.id}`,
      `/v1/public/receipts/${a.id}?token=`,
      `/v1/public/receipts/${b.id}?token=${encodeURIComponent(tokenA)}`,
      `/v1/public/receipts/evt_unknown?token=${encodeURIComponent(tokenA)}`,
      `/v1/public/receipts/${a.id}?token=not-a-token`,
    ]) {
      const res = await t.http.get(path, { headers: accept });
      expectProblemShape(res, 404, 'not_found');
      // The address may still hold a visitor's token (a wrong one, or another event's).
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expectProblemShape(
      await t.http.get(`/v1/public/receipts/${a.id}`, { headers: { accept: 'text/html' } }),
      404,
      'not_found',
    );
  });

  it('serves the page as HTML with a strict nonce CSP and no subject id or pseudonym', async () => {
    const subjectId = newSubjectId();
    const data = await recordConsent(t, site, { subjectId });
    const res = await t.http.get(pathOf(data.receipt.url), { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') as string;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.text).toContain(`<script nonce="${nonce}">`);
    const pseudonym = await t.app.services.evidence.pseudonymize(tenant.organizationId, subjectId);
    expect(res.text).not.toContain(subjectId);
    expect(res.text).not.toContain(pseudonym);
  });

  it('replays the same receipt url for an Idempotency-Key retry, and stores the 201 sealed', async () => {
    const body = preferencesBody(site);
    const first = await postPreferences(t, site.siteKey, body, { idempotencyKey: 'receipt-retry-1' });
    const again = await postPreferences(t, site.siteKey, body, { idempotencyKey: 'receipt-retry-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.receipt.url).toBe(first.body.data.receipt.url);
    const token = new URL(first.body.data.receipt.url).searchParams.get('token') as string;
    const stored = await rawSql(t.store).execute(
      sql`select response_body, response_body_encrypted from idempotency_keys where key = 'receipt-retry-1'`,
    );
    const rows = (
      stored as unknown as { rows: Array<{ response_body: string; response_body_encrypted: boolean }> }
    ).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].response_body_encrypted).toBe(true);
    expect(rows[0].response_body).not.toContain(token);
  });
});
