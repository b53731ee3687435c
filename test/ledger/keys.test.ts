import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { presentTreeHead as present } from '../../src/modules/ledger/ledger.service.ts';
import { createLedgerKeys, SIGNING_KEY_FILE } from '../../src/modules/ledger/ledger-keys.ts';
import { ledgerKeyId } from '../../src/modules/ledger/signing.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { independentSignatureVerifies, insertEvents, newSigningKey } from './ledger-helpers.ts';

const keyA = newSigningKey();
const keyB = newSigningKey();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-ledger-keys-'));
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { LEDGER_SIGNING_KEY: keyA.pem } });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('ledger signing keys', () => {
  it('keeps the old public key published after a key change, so old tree heads still verify', async () => {
    const scope = { organizationId: (await t.tenant()).organizationId, environment: 'live' as const };
    await insertEvents(t.store, scope, 3);
    const before = (await t.app.services.ledger.sealer.sealLog(scope)).head!;
    expect(before.keyId).toBe(ledgerKeyId(Buffer.from(keyA.publicKey, 'base64')));

    // The same database, now run with another configured key.
    const rotated = await startTestApp({ store: t.store, env: { LEDGER_SIGNING_KEY: keyB.pem } });
    try {
      await insertEvents(t.store, scope, 2);
      const after = (await rotated.app.services.ledger.sealer.sealLog(scope)).head!;
      expect(after.keyId).toBe(ledgerKeyId(Buffer.from(keyB.publicKey, 'base64')));
      const res = await rotated.http.get('/v1/public/ledger-keys');
      expect(res.status).toBe(200);
      const published = res.body.data as Array<{ keyId: string; algorithm: string; publicKey: string }>;
      for (const key of [keyA, keyB]) {
        const raw = Buffer.from(key.publicKey, 'base64');
        expect(published).toContainEqual({
          keyId: ledgerKeyId(raw),
          algorithm: 'Ed25519',
          publicKey: key.publicKey,
        });
      }
      const heads = await rotated.http.get('/v1/evidence/tree-heads', {
        key: (await rotated.tenant()).testKey,
      });
      expect(heads.status).toBe(200);
      const [newest, older] = await t.app.services.ledger.treeHeads(t.store.scope(null), scope, 10, null);
      const keyOf = (id: string) => Buffer.from(published.find((k) => k.keyId === id)!.publicKey, 'base64');
      expect(independentSignatureVerifies(present(newest), keyOf(newest.keyId))).toBe(true);
      expect(independentSignatureVerifies(present(older), keyOf(older.keyId))).toBe(true);
      expect(independentSignatureVerifies(present(older), keyOf(newest.keyId))).toBe(false);
    } finally {
      await rotated.close();
    }
  });

  it('without LEDGER_SIGNING_KEY generates one key once (a DATA_DIR file when embedded, the database on PostgreSQL)', async () => {
    const make = () => createLedgerKeys({ store: t.store, clock: t.clock, configuredPem: null, dataDir });
    const [first, again] = await Promise.all([make().signer(), make().signer()]);
    expect(again.keyId).toBe(first.keyId);
    const restarted = await make().signer();
    expect(restarted.keyId).toBe(first.keyId);
    const file = path.join(dataDir, SIGNING_KEY_FILE);
    if (t.store.kind === 'embedded') {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, 'utf8')).toContain('BEGIN PRIVATE KEY');
    } else {
      expect(fs.existsSync(file)).toBe(false);
    }
    const published = await make().published(t.store.scope(null));
    expect(published.map((k) => k.keyId)).toContain(first.keyId);
  });

  it('refuses a LEDGER_SIGNING_KEY that is not an Ed25519 PKCS#8 PEM, without echoing it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    }) as string;
    for (const [value, message] of [
      ['not a key', 'is not a PKCS#8 PEM private key'],
      [rsa, 'must be an Ed25519 key'],
    ]) {
      const error = (() => {
        try {
          loadConfig({ LEDGER_SIGNING_KEY: value });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect(error?.message).toContain(message);
      expect(error?.message).not.toContain(value.slice(0, 20));
    }
    // PEM with literal \n escapes, as environment files often carry it, is accepted.
    expect(loadConfig({ LEDGER_SIGNING_KEY: keyA.pem.replace(/\n/g, '\\n') }).ledgerSigningKey).toBeTruthy();
    expect(loadConfig({}).ledgerSealSeconds).toBe(5);
    expect(() => loadConfig({ LEDGER_SEAL_SECONDS: '0' })).toThrow(ConfigError);
  });
});
