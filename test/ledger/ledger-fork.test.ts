import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ledgerCommand } from '../../src/cli/ledger-command.ts';
import { loadConfig } from '../../src/config.ts';
import { createEmbeddedStore, createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { openTestStore, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { newSigningKey } from './ledger-helpers.ts';
import { verifyConsistencyProof } from './rfc9162.ts';

/**
 * A database restored from a backup taken before some seals: the tree heads signed since are gone
 * from it, as they are from a standby promoted behind its primary (test/reliability/ledger-fork
 * runs that one on a real asynchronous standby). The sealer must find that the database no longer
 * extends the newest head it signed, sign nothing over it, and say so (its report, /metrics, the
 * proof of a new event); once an operator accepts the fork, it signs again, from the heads the
 * database kept.
 *
 * The backup is the store's own: PGlite's dumpDataDir on the embedded store, a copy of the
 * database (CREATE DATABASE … TEMPLATE) on PostgreSQL.
 */
const signingKey = newSigningKey();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-fork-'));
const env = { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem, DATA_DIR: dataDir };
const opened: Array<{ t: TestApp; store: Store; own: boolean }> = [];
afterAll(async () => {
  for (const { t, store, own } of opened.reverse()) {
    await t.close();
    if (own) await store.close();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function appOn(store: Store, own: boolean): Promise<TestApp> {
  const t = await startTestApp({ store, env });
  opened.push({ t, store, own });
  return t;
}

const treeHeads = async (t: TestApp, key: string) => {
  const res = await t.http.get('/v1/evidence/tree-heads?limit=100', { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{ treeSize: number; rootHash: string }>;
};

const forksGauge = async (t: TestApp) =>
  Number(/^consent_service_ledger_forks (\d+)/m.exec((await t.http.get('/metrics')).text)?.[1]);

/** A backup of the store now, and how to open the database restored from it. */
async function backupOf(t: TestApp): Promise<{ restore: () => Promise<Store>; drop: () => Promise<void> }> {
  if (t.store.pglite) {
    const dump = await t.store.pglite.dumpDataDir();
    return { restore: () => createEmbeddedStore({ loadDataDir: dump }), drop: async () => {} };
  }
  const url = new URL(process.env.DATABASE_URL!);
  const source = url.pathname.slice(1);
  const copy = `${source}_backup`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  // A database copy needs the source to itself: this store's sessions end for the copy.
  await admin.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [source],
  );
  await admin.query(`create database "${copy}" template "${source}"`);
  await admin.end();
  url.pathname = `/${copy}`;
  return {
    restore: async () => createPostgresStore(url.toString(), { max: 4 }),
    drop: async () => {
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`drop database if exists "${copy}" with (force)`);
      await client.end();
    },
  };
}

describe('a ledger whose database was restored from before some seals', () => {
  it('is not signed over, is reported, and is signed again once the fork is accepted', async () => {
    const t = await appOn(await openTestStore(), true);
    const tenant: Tenant = await t.tenant();
    const site: ReadySite = await createReadySite(t, tenant.testKey);
    const scope = { organizationId: tenant.organizationId, environment: 'test' as const };
    const seal = (app: TestApp) => app.app.services.ledger.sealer.sealAll();

    for (let i = 0; i < 5; i++) await recordConsent(t, site, { subjectId: `before-backup-${i}` });
    await seal(t);
    const [kept] = await treeHeads(t, tenant.testKey);
    expect(kept.treeSize).toBe(5);

    const backup = await backupOf(t);
    try {
      for (let i = 0; i < 4; i++) await recordConsent(t, site, { subjectId: `after-backup-${i}` });
      await seal(t);
      const [lost] = await treeHeads(t, tenant.testKey);
      expect(lost.treeSize).toBe(9);

      // The database is restored from the backup; the sealers keep what they signed in DATA_DIR.
      const restored = await appOn(await backup.restore(), true);
      const fresh = await recordConsent(restored, site, { subjectId: 'after-restore' });
      const run = await seal(restored);
      // Nothing was signed over the restored tree: its newest head is the one the backup had.
      expect((await treeHeads(restored, tenant.testKey))[0]).toEqual(kept);
      expect(run.forks).toEqual([
        expect.objectContaining({ ...scope, signedTreeSize: 9, databaseTreeSize: 5 }),
      ]);
      expect(await forksGauge(restored)).toBe(1);
      const proof = await restored.http.get(`/v1/evidence/${fresh.id}/proof`, { key: tenant.testKey });
      expect(expectProblemShape(proof, 409, 'evidence_not_sealed').detail).toMatch(
        /no longer extends tree head 9 .*accept/,
      );
      // A second run neither signs nor reports the same fork again.
      expect((await seal(restored)).forks).toEqual([]);
      expect((await treeHeads(restored, tenant.testKey))[0]).toEqual(kept);

      // The operator accepts the fork: the database's tree is the log from now on.
      const out: string[] = [];
      await ledgerCommand(
        {
          config: loadConfig(env),
          out: (line) => out.push(line),
          note: () => {},
          readStdin: async () => '',
          cwd: process.cwd(),
          withRuntime: (fn) =>
            fn({ store: restored.store, services: restored.app.services, close: async () => {} }),
        },
        ['accept-fork', '--org', tenant.organizationId, '--environment', 'test', '--json'],
      );
      expect(JSON.parse(out[0]).accepted).toHaveLength(1);
      await seal(restored);
      const [signed] = await treeHeads(restored, tenant.testKey);
      expect(signed.treeSize).toBe(6);
      expect(await forksGauge(restored)).toBe(0);
      const sealed = await restored.http.get(`/v1/evidence/${fresh.id}/proof`, { key: tenant.testKey });
      expect(sealed.status, sealed.text).toBe(200);
      // The new head extends the one the database kept (and only that one).
      const consistency = await restored.http.get('/v1/evidence/consistency?first=5&second=6', {
        key: tenant.testKey,
      });
      expect(verifyConsistencyProof(5, 6, kept.rootHash, signed.rootHash, consistency.body.data.proof)).toBe(
        true,
      );
      const audit = await restored.http.get('/v1/audit-logs?action=ledger.fork_accepted', {
        key: tenant.testKey,
      });
      expect(audit.body.data).toHaveLength(1);
    } finally {
      await backup.drop();
    }
  }, 120_000);
});
