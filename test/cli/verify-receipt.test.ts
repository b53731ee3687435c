import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { newSigningKey } from '../ledger/ledger-helpers.ts';

/**
 * `npx consent-service verify-receipt FILE_OR_URL --key KEY` as a visitor runs it,
 * against receipts of a real service: a good one (file, envelope or bare, and URL), a changed
 * decision, a wrong key, an unsealed one, and a wrong token.
 */
const BIN = path.resolve('bin/consent-service.mjs');
const SLOW = 180_000;
const signingKey = newSigningKey();
const otherKey = newSigningKey();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-verify-receipt-'));
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let sealedUrl: string;
let sealed: Record<string, any>;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as a visitor runs it, with a database URL nothing listens on: it must not need one. */
function verifyReceipt(source: string, keys: string[] = [signingKey.publicKey]): Promise<Result> {
  const env = { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: dir };
  // `--key=KEY`: a base64url key may start with "-", which as a separate argument reads as an option
  // (one run in 64 failed so, with its random key).
  const args = [BIN, 'verify-receipt', source, ...keys.map((k) => `--key=${k}`)];
  return new Promise((resolve) => {
    execFile('node', args, { env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The receipt url on the test server (BASE_URL in tests is not where it listens). */
const onServer = (url: string) => {
  const u = new URL(url);
  return t.baseUrl + u.pathname + u.search;
};

async function fetchReceipt(url: string) {
  const res = await fetch(onServer(url), { headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Record<string, any> };
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem, DATA_DIR: dir } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1_000);
    await recordConsent(t, site);
  }
  sealedUrl = (await recordConsent(t, site, { language: 'de' })).receipt.url;
  for (let attempt = 0; attempt < 10 && !sealed?.proof; attempt++) {
    t.clock.advance(5_000);
    await t.worker.runDue();
    sealed = (await fetchReceipt(sealedUrl)).data;
  }
  expect(sealed.proof).not.toBeNull();
  expect(sealed.proof.auditPath.length).toBeGreaterThan(0);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npx consent-service verify-receipt', { timeout: SLOW }, () => {
  it('verifies a good receipt from a file (envelope or bare) and prints what was recorded', async () => {
    for (const file of [
      writeJson('good-envelope.json', { data: sealed }),
      writeJson('good-bare.json', sealed),
    ]) {
      const result = await verifyReceipt(file);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(
        new RegExp(
          `^Verified: receipt ${sealed.eventId} is signed by key \\S+, and its event is leaf ${sealed.proof.leafIndex} of log log_\\S+ at size 4`,
        ),
      );
      expect(result.stdout).toContain('  Recorded by:     Test Org');
      expect(result.stdout).toContain(`  Recorded at:     ${sealed.recordedAt}`);
      expect(result.stdout).toContain(
        '  Privacy policy:  https://shop.example.com/privacy (version 2024-05)',
      );
      expect(result.stdout).toContain('  Language:        de');
      expect(result.stdout).toMatch(/ {4}analytics +granted +Statistik; legal basis: \S+/);
      expect(result.stdout).toMatch(/ {4}marketing +denied +Marketing; legal basis: \S+/);
      expect(result.stdout).not.toContain('FAIL');
    }
  });

  it('verifies a good receipt from its URL, fetched as JSON', async () => {
    const result = await verifyReceipt(onServer(sealedUrl));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Verified: receipt ${sealed.eventId} `));
  });

  it('accepts the key as GET /v1/public/ledger-keys publishes it, and as base64url or SPKI', async () => {
    const res = await fetch(`${t.baseUrl}/v1/public/ledger-keys`);
    const published = ((await res.json()) as { data: Array<{ publicKey: string }> }).data;
    expect(published.map((k) => k.publicKey)).toContain(signingKey.publicKey);
    const raw = Buffer.from(signingKey.publicKey, 'base64');
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]).toString('base64');
    const file = writeJson('good-keys.json', sealed);
    for (const key of [raw.toString('base64url'), spki]) {
      const result = await verifyReceipt(file, [key]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
  });

  it('fails a receipt with a changed decision on its signature, exit 1', async () => {
    const tampered = structuredClone(sealed);
    const marketing = tampered.purposes.find((p: { key: string }) => p.key === 'marketing');
    marketing.decision = 'granted';
    const result = await verifyReceipt(writeJson('tampered.json', { data: tampered }));
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^FAIL receipt signature: does not verify with key \S+: the receipt's content/);
    expect(lines[1]).toMatch(/^Not verified \(receipt signature\): receipt /);
    expect(result.stdout).not.toMatch(/^Verified/m);
  });

  it('fails a changed leaf hash on the signature and the inclusion proof', async () => {
    const tampered = structuredClone(sealed);
    tampered.leafHash = tampered.leafHash.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    const result = await verifyReceipt(writeJson('tampered-leaf.json', tampered));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL receipt signature: /m);
    expect(result.stdout).toMatch(
      new RegExp(`^FAIL inclusion proof: leaf ${sealed.proof.leafIndex} does not lead to the root`, 'm'),
    );
    expect(result.stdout).toMatch(/^Not verified \(receipt signature, inclusion proof\)/m);
  });

  it('fails with a wrong key, naming the key ids', async () => {
    const result = await verifyReceipt(writeJson('wrong-key.json', sealed), [otherKey.publicKey]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL receipt signature: signed by key \S+, not by the given key/m);
    expect(result.stdout).toMatch(/^FAIL tree head signature: signed by key \S+, not by the given key/m);
  });

  it('fails a forged tree head signature with the right key id', async () => {
    const forged = structuredClone(sealed);
    forged.proof.treeHead.signature = Buffer.alloc(64, 7).toString('base64');
    const result = await verifyReceipt(writeJson('forged-head.json', forged));
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')[0]).toMatch(
      /^FAIL tree head signature: the tree head of log_\S+ at size 4 does not verify with key/,
    );
  });

  it('says "not yet sealed" for an unsealed receipt, exit 1', async () => {
    const data = await recordConsent(t, site);
    const result = await verifyReceipt(onServer(data.receipt.url));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL not yet sealed: the event is recorded but not yet sealed/m);
    expect(result.stdout).not.toMatch(/^FAIL receipt signature/m);
    expect(result.stdout).toMatch(/^Not verified \(not yet sealed\)/m);
  });

  it('fails in one line for a wrong token, a missing file, and a file that is not a receipt', async () => {
    const url = new URL(onServer(sealedUrl));
    url.searchParams.set('token', 'org_x.wrong');
    const wrong = await verifyReceipt(url.toString());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trimEnd()).toMatch(/^consent-service: the receipt address answered 404/);
    const missing = await verifyReceipt(path.join(dir, 'none.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trimEnd()).toMatch(/^consent-service: no such file/);
    const notReceipt = await verifyReceipt(writeJson('not-receipt.json', { data: { eventId: 'evt_x' } }));
    expect(notReceipt.code).toBe(1);
    expect(notReceipt.stderr.trimEnd()).toMatch(
      /^consent-service: not a receipt: missing or malformed controller/,
    );
  });
});
