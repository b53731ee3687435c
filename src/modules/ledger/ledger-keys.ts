import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { asc } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.ts';
import { serviceSecret } from '../../platform/db/service-secrets.ts';
import type { DbScope, Store } from '../../platform/db/store.ts';
import { ledgerKeys } from './ledger.tables.ts';
import {
  type LedgerSigner,
  parseSigningKeyPem,
  privateKeyFromSeed,
  signerFromPrivateKey,
} from './signing.ts';

export const SIGNING_KEY_FILE = 'ledger-signing-key.pem';

/**
 * Where the tree-head signing key comes from (docs/decisions/ledger.md):
 *
 * 1. `LEDGER_SIGNING_KEY` (PKCS#8 PEM) when configured: the operator owns and rotates it.
 * 2. Embedded store: generated once into `DATA_DIR/ledger-signing-key.pem` (mode 0600), beside the
 *    data it signs; move it into LEDGER_SIGNING_KEY to keep it across a new data directory.
 * 3. PostgreSQL without the setting: a 32-byte seed generated once in `service_secrets`, so every
 *    replica signs with the same key. Trade-off: whoever can read the database can then sign tree
 *    heads, which weakens the ledger against a database-level attacker; production deployments
 *    should configure LEDGER_SIGNING_KEY from a secret store.
 *
 * Every key that signs is recorded (public part only) in ledger_keys and never removed, so heads
 * signed before a key change stay verifiable with the published keys.
 */
export function createLedgerKeys(deps: {
  store: Store;
  clock: Clock;
  configuredPem: string | null;
  dataDir: string;
}) {
  const { store, clock } = deps;
  let signer: Promise<LedgerSigner> | null = null;

  async function load(): Promise<LedgerSigner> {
    const privateKey = deps.configuredPem
      ? parseSigningKeyPem(deps.configuredPem)
      : store.kind === 'embedded'
        ? parseSigningKeyPem(readOrCreateKeyFile(path.join(deps.dataDir, SIGNING_KEY_FILE)))
        : privateKeyFromSeed(await serviceSecret(store, 'ledger-signing-seed'));
    const loaded = signerFromPrivateKey(privateKey);
    await store.tx((tx) =>
      tx
        .insert(ledgerKeys)
        .values({
          keyId: loaded.keyId,
          algorithm: 'Ed25519',
          publicKey: loaded.publicKey,
          createdAt: clock.now(),
        })
        .onConflictDoNothing(),
    );
    return loaded;
  }

  return {
    /** The current signer, loaded (and its public key published) on first use. */
    signer(): Promise<LedgerSigner> {
      signer ??= load().catch((error) => {
        signer = null;
        throw error;
      });
      return signer;
    },

    /**
     * Every published key, oldest first; the current one is published before this answers (by the
     * signer's own load, which writes on the store once per process, not in the caller's scope).
     */
    async published(db: DbScope) {
      await this.signer();
      const rows = await db.read
        .select()
        .from(ledgerKeys)
        .orderBy(asc(ledgerKeys.createdAt), asc(ledgerKeys.keyId));
      return rows.map((row) => ({
        keyId: row.keyId,
        algorithm: row.algorithm as 'Ed25519',
        publicKey: row.publicKey.toString('base64'),
      }));
    },
  };
}

export type LedgerKeys = ReturnType<typeof createLedgerKeys>;

/** Reads the key file, or creates it; concurrent first starts agree on the file that won. */
function readOrCreateKeyFile(file: string): string {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, pem, { mode: 0o600 });
    try {
      // link() fails if the file appeared meanwhile: the first writer's key is kept.
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }
  return fs.readFileSync(file, 'utf8');
}
