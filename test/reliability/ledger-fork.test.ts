import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createClient, type HttpClient } from '../helpers/http.ts';
import { type PgCluster, pgBinariesMissing, startPgCluster } from '../helpers/pg-cluster.ts';
import { freePort, runCli, type ServiceProcess, startService, waitReady } from '../helpers/processes.ts';
import { createReadySite, preferencesBody, type ReadySite, SITE_ORIGIN } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { newSigningKey } from '../ledger/ledger-helpers.ts';

/**
 * What asynchronous replication costs, on a real primary and an asynchronous standby this test
 * starts: the standby stops receiving the primary's WAL (it falls behind, as a lagging standby
 * does), the service keeps acknowledging decisions and signing tree heads on the primary, then the
 * primary dies and the standby is promoted. The service follows the failover by itself; the
 * decisions acknowledged after the standby fell behind are gone, and so are the heads signed over
 * them. The sealer must not sign over the promoted database (a head inconsistent with one already
 * handed out): it reports the fork (/metrics, an error line, the proofs' answer) until an operator
 * accepts it with `consent-service ledger accept-fork`, after which it signs again.
 *
 * It needs PostgreSQL's server binaries; it runs on every PostgreSQL run, and on the embedded run
 * only where they are installed.
 */
const missing = pgBinariesMissing();
if (missing && process.env.DATABASE_URL)
  throw new Error(`the ledger fork test needs PostgreSQL's binaries: ${missing}`);

interface Head {
  treeSize: number;
  rootHash: string;
}

describe.skipIf(skipWith(missing))(
  `a ledger forked by a failover to an asynchronous standby${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let cluster: PgCluster;
    let service: ServiceProcess;
    let http: HttpClient;
    let baseUrl: string;
    let liveKey: string;
    let organizationId: string;
    let site: ReadySite;
    let env: Record<string, string>;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-fork-'));

    async function query<R>(server: { host: string }, text: string, values: unknown[] = []): Promise<R[]> {
      const client = new pg.Client({ connectionString: `postgres://postgres@${server.host}/consent` });
      await client.connect();
      try {
        return (await client.query(text, values)).rows as R[];
      } finally {
        await client.end();
      }
    }

    /** Polls `read` until `done` holds (the product's own answer), or fails after `ms`. */
    async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await read();
        if (done(value)) return value;
        if (Date.now() > deadline)
          throw new Error(`${what}: still ${JSON.stringify(value)}\n${service.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    const decide = async () =>
      fetch(`${baseUrl}/v1/public/sites/${site.siteKey}/preferences`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
        body: JSON.stringify(preferencesBody(site)),
      }).then(async (res) => ({
        status: res.status,
        id: ((await res.json()) as { data?: { id: string } }).data?.id,
      }));

    const heads = async (): Promise<Head[]> => {
      const res = await http.get('/v1/evidence/tree-heads?limit=100', { key: liveKey });
      return res.status === 200 ? res.body.data : [];
    };
    const forksGauge = async () =>
      Number(/^consent_service_ledger_forks (\d+)/m.exec((await http.get('/metrics')).text)?.[1] ?? -1);

    beforeAll(async () => {
      cluster = await startPgCluster(1, { synchronous: false });
      const admin = new pg.Client({ connectionString: cluster.url('postgres', [cluster.primary], '') });
      await admin.connect();
      await admin.query('create database consent');
      await admin.end();
      env = {
        DATABASE_URL: cluster.url('consent', [cluster.primary, ...cluster.standbys]),
        DATA_DIR: dataDir,
        LEDGER_SIGNING_KEY: newSigningKey().pem,
      };
      const boot = await runCli(
        ['bootstrap', '--org', 'Fork', '--owner', 'owner@example.com', '--json'],
        env,
        60_000,
      );
      expect(boot.code, boot.stderr).toBe(0);
      const booted = JSON.parse(boot.stdout);
      liveKey = booted.apiKeys.live;
      organizationId = booted.organization.id;
      const port = await freePort();
      service = startService(['serve'], {
        ...env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        LEDGER_SEAL_SECONDS: '1',
        RATE_LIMIT_PER_MINUTE: '1000000',
        PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      });
      baseUrl = `http://127.0.0.1:${port}`;
      await waitReady(baseUrl, service, 60_000);
      http = createClient(baseUrl);
      site = await createReadySite({ http, clock: { advance: () => {} } } as unknown as TestApp, liveKey);
    }, 180_000);

    afterAll(async () => {
      service?.kill();
      await service?.exited;
      await cluster?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the lost decisions are counted, the fork is reported and not signed over, and accepting it resumes signing', async () => {
      const [primary] = [cluster.primary];
      const [standby] = cluster.standbys;
      for (let i = 0; i < 10; i++) expect((await decide()).status).toBe(201);
      await until(heads, (h) => h[0]?.treeSize === 10, 'the first ten decisions sealed');
      // The standby has everything so far, then falls behind: it stops receiving the primary's WAL.
      const [{ lsn }] = await query<{ lsn: string }>(primary, 'select pg_current_wal_lsn()::text as lsn');
      await until(
        () => query<{ ok: boolean }>(standby, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [lsn]),
        (rows) => rows[0].ok,
        'the standby caught up',
      );
      await standby.detach();
      await until(
        () => query(primary, "select 1 from pg_stat_replication where application_name = 's1'"),
        (rows) => rows.length === 0,
        'the standby stopped streaming',
      );

      const afterLag: string[] = [];
      for (let i = 0; i < 20; i++) {
        const answer = await decide();
        expect(answer.status).toBe(201);
        afterLag.push(answer.id!);
      }
      const signedBeforeFailover = await until(
        heads,
        (h) => h[0]?.treeSize === 30,
        'thirty decisions sealed',
      );
      const handedOut = new Set(signedBeforeFailover.map((h) => `${h.treeSize}:${h.rootHash}`));

      primary.kill();
      await standby.promote();
      const afterFailover = await until(
        decide,
        (answer) => answer.status === 201,
        'a write after the failover',
        60_000,
      );
      for (let i = 0; i < 4; i++) expect((await decide()).status).toBe(201);

      // The positive signal: the sealer reports the fork.
      await until(forksGauge, (n) => n === 1, 'the fork reported in /metrics');
      const lost = [];
      for (const id of afterLag)
        if ((await http.get(`/v1/evidence/${id}`, { key: liveKey })).status === 404) lost.push(id);
      console.log(
        `asynchronous standby promoted behind its primary: ${lost.length} of ${afterLag.length} acknowledged decisions lost; tree head 30 had been signed over them`,
      );
      expect(lost.length).toBeGreaterThan(0);
      // No head was signed over the promoted database: every head it shows was handed out before.
      const shown = await heads();
      for (const head of shown) expect(handedOut.has(`${head.treeSize}:${head.rootHash}`)).toBe(true);
      expect(shown[0].treeSize).toBeLessThan(30);
      const proof = await http.get(`/v1/evidence/${afterFailover.id}/proof`, { key: liveKey });
      expect(proof.status).toBe(409);
      expect(proof.body.detail).toMatch(/no longer extends tree head 30/);
      expect(service.output()).toMatch(
        /ledger fork: the database's log has \d+ leaves, fewer than tree head 30/,
      );

      // The operator accepts the fork; the sealer signs the promoted database's tree again.
      const accepted = await runCli(
        ['ledger', 'accept-fork', '--org', organizationId, '--environment', 'live'],
        env,
        60_000,
      );
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(accepted.stdout).toMatch(/^Accepted: log log_\w+/);
      await until(forksGauge, (n) => n === 0, 'the fork accepted');
      const resumed = await until(heads, (h) => h[0]?.treeSize > shown[0].treeSize, 'a head signed again');
      expect(handedOut.has(`${resumed[0].treeSize}:${resumed[0].rootHash}`)).toBe(false);
      expect((await http.get(`/v1/evidence/${afterFailover.id}/proof`, { key: liveKey })).status).toBe(200);
      const listed = await runCli(['ledger', 'forks', '--json'], env, 60_000);
      const [fork] = JSON.parse(listed.stdout).forks;
      expect(fork).toMatchObject({ organizationId, environment: 'live', signedTreeSize: 30 });
      expect(fork.acceptedAt).not.toBeNull();
    }, 180_000);
  },
);
