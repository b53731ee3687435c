import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { runExport } from '../../src/modules/exports/exports.service.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { newSigningKey } from './ledger-helpers.ts';

const BIN = path.resolve('bin/consent-service.mjs');
const signingKey = newSigningKey();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-verify-export-'));
let t: TestApp;
let tenant: Tenant;
let lines: string[];

/** Runs the CLI as a user would, with a database URL nothing listens on: it must not need one. */
function verify(file: string, key = signingKey.publicKey): Promise<{ code: number; stdout: string }> {
  const env = { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: dir };
  return new Promise((resolve) => {
    execFile(
      'node',
      [BIN, 'verify-export', file, '--key', key],
      { env, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (stderr) console.error(stderr);
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout });
      },
    );
  });
}

function writeFile(name: string, content: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${content.join('\n')}\n`);
  return file;
}

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem, DATA_DIR: dir } });
  tenant = await t.tenant();
  const site = await createReadySite(t, tenant.testKey);
  for (let i = 0; i < 4; i++) {
    t.clock.advance(1_000);
    await recordConsent(t, site, { decisions: { analytics: i % 2 ? 'granted' : 'denied' } });
  }
  const requested = await t.http.post('/v1/exports', { key: tenant.testKey, body: { includeProofs: true } });
  expect(requested.status, requested.text).toBe(202);
  const done = await runExport(t.app.services, {
    organizationId: tenant.organizationId,
    exportId: requested.body.data.id,
  });
  expect(done?.status).toBe('succeeded');
  const file = await fetch(`${t.baseUrl}/v1/exports/${requested.body.data.id}/file`, {
    headers: { authorization: `Bearer ${tenant.testKey}` },
  });
  expect(file.status).toBe(200);
  lines = (await file.text()).trimEnd().split('\n');
  expect(lines).toHaveLength(5);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npx consent-service verify-export', () => {
  it('passes on a real export made with includeProofs', async () => {
    const result = await verify(writeFile('good.jsonl', lines));
    expect(result.stdout).toContain('OK: 4 events verified');
    expect(result.code).toBe(0);
  });

  it('reports a tampered line (content changed, or content and receipt changed together)', async () => {
    const changed = JSON.parse(lines[2]);
    changed.decisions = {
      ...changed.decisions,
      analytics: changed.decisions.analytics === 'granted' ? 'denied' : 'granted',
    };
    const first = await verify(
      writeFile('tampered.jsonl', [lines[0], lines[1], JSON.stringify(changed), lines[3], lines[4]]),
    );
    expect(first.code).not.toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`FAIL line 3 \\(${changed.id}\\): content does not match its receipt`),
    );
    expect(first.stdout).toContain('1 failure;');

    // A forger who also rewrites the receipt hash is caught by the inclusion proof.
    changed.receipt = { hash: evidenceLeafHash(changed) };
    const second = await verify(
      writeFile('forged.jsonl', [lines[0], JSON.stringify(changed), lines[2], lines[3], lines[4]]),
    );
    expect(second.code).not.toBe(0);
    expect(second.stdout).toMatch(/FAIL line 2 .*inclusion proof of leaf \d+ fails/);
  });

  it('fails with another key, a changed tree head, or no tree head', async () => {
    const other = await verify(writeFile('good2.jsonl', lines), newSigningKey().publicKey);
    expect(other.code).not.toBe(0);
    expect(other.stdout).toContain('does not verify with this key');

    const head = JSON.parse(lines[4]);
    const digit = head.treeHead.rootHash[0] === '0' ? '1' : '0';
    head.treeHead.rootHash = digit + head.treeHead.rootHash.slice(1);
    const changedRoot = await verify(writeFile('root.jsonl', [...lines.slice(0, 4), JSON.stringify(head)]));
    expect(changedRoot.code).not.toBe(0);
    expect(changedRoot.stdout.split('\n').filter((l) => l.startsWith('FAIL')).length).toBe(5);

    const headless = await verify(writeFile('headless.jsonl', lines.slice(0, 4)));
    expect(headless.code).not.toBe(0);
    expect(headless.stdout).toContain('no {"treeHead": …} line');
  });
});
