import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createPostgresStore } from '../../src/platform/db/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type PgCluster, pgBinariesMissing, startPgCluster } from '../helpers/pg-cluster.ts';
import { runCli } from '../helpers/processes.ts';
import { createReadySite, newSubjectId, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';

/**
 * DATABASE_READ_URL on a real standby this test starts (a primary and one synchronous standby):
 * a replica that refuses the service's password does not fail its reads (the primary serves them,
 * and the refusal is named as such, without the password); a `prefer-standby` host list goes back
 * to the standby once it is back from a stop; a DATABASE_URL host list whose password is wrong says
 * so, not that no host is a read-write server.
 *
 * It needs PostgreSQL's server binaries; it runs on every PostgreSQL run, and on the embedded run
 * only where they are installed.
 */
const missing = pgBinariesMissing();
if (missing && process.env.DATABASE_URL)
  throw new Error(`the replica fallback test needs PostgreSQL's binaries: ${missing}`);

const READER_PASSWORD = 'Rd7pass-right';
const WRONG_PASSWORD = 'Qz8wrongPw';

describe.skipIf(skipWith(missing))(
  `a replica that refuses the password or goes away${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let cluster: PgCluster;
    let primaryUrl: string;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replica-fallback-'));

    beforeAll(async () => {
      cluster = await startPgCluster(1, { passwordRoles: { reader: READER_PASSWORD } });
      const admin = new pg.Client({ connectionString: cluster.url('postgres', [cluster.primary], '') });
      await admin.connect();
      await admin.query('create database consent');
      await admin.end();
      primaryUrl = cluster.url('consent', [cluster.primary], '');
      const store = createPostgresStore(primaryUrl, { max: 2 });
      await runMigrations(store);
      await store.close();
    }, 180_000);

    afterAll(async () => {
      await cluster?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** Lines the app logs, kept as text. */
    function capture() {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      return { stream, lines };
    }

    async function appOn(readUrl: string, logged = capture()) {
      const store = createPostgresStore(primaryUrl, { max: 4, readUrl, replicaMaxRetryMs: 2000 });
      const t = await startTestApp({
        store,
        env: { ...SITES_TEST_ENV, LOG_LEVEL: 'info', DATA_DIR: dataDir },
        logger: { stream: logged.stream },
      });
      const tenant = await t.tenant();
      const site = await createReadySite(t, tenant.testKey);
      const subjectId = newSubjectId();
      const event = await recordConsent(t, site, { subjectId });
      const reads = async () => {
        const list = await t.http.get(`/v1/evidence?channelId=${site.channelId}`, { key: tenant.testKey });
        const lookup = await t.http.post('/v1/consent-state/lookups', {
          key: tenant.testKey,
          body: { channelId: site.channelId, subjectIds: [subjectId] },
        });
        expect(list.status, list.text).toBe(200);
        expect(lookup.status, lookup.text).toBe(200);
        return list.body.data.map((e: { id: string }) => e.id);
      };
      return { t, store, event, reads, logged };
    }

    /** Sessions of the service's reads on the standby (they carry their own application_name). */
    async function readSessionsOnStandby(): Promise<number> {
      const client = new pg.Client({ connectionString: cluster.url('postgres', [cluster.standbys[0]], '') });
      await client.connect();
      try {
        const { rows } = await client.query(
          "select count(*)::int as n from pg_stat_activity where application_name = 'consent-reads'",
        );
        return rows[0].n;
      } finally {
        await client.end();
      }
    }

    async function closeApp(t: TestApp) {
      await t.close();
      await t.store.close();
    }

    it('a replica refusing the password: reads are served by the primary, and the refusal is named without the password', async () => {
      const standby = cluster.standbys[0];
      const { t, event, reads, logged } = await appOn(
        `postgres://reader:${WRONG_PASSWORD}@${standby.host}/consent`,
      );
      try {
        for (let i = 0; i < 3; i++) expect(await reads()).toEqual([event.id]);
        const ready = await t.http.get('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({ status: 'ok', primary: 'ok', replica: 'credentials_refused' });
        const metrics = (await t.http.get('/metrics')).text;
        expect(metrics).toMatch(
          /consent_service_db_replica_fallbacks_total\{reason="credentials_refused"\} [1-9]/,
        );
        const named = logged.lines.filter((line) => line.includes('DATABASE_READ_URL'));
        expect(named.join('\n')).toMatch(/refused the password/);
        for (const line of logged.lines) expect(line).not.toContain(WRONG_PASSWORD);
      } finally {
        await closeApp(t);
      }
    }, 60_000);

    it('prefer-standby: reads leave a stopped standby for the primary and go back to it once it is back', async () => {
      const [standby] = cluster.standbys;
      const { t, event, reads } = await appOn(
        `postgres://postgres@${standby.host},${cluster.primary.host}/consent?target_session_attrs=prefer-standby&application_name=consent-reads`,
      );
      try {
        expect(await reads()).toEqual([event.id]);
        expect(await readSessionsOnStandby()).toBeGreaterThan(0);

        await standby.stop();
        for (let i = 0; i < 5; i++) expect(await reads()).toEqual([event.id]);

        await standby.start();
        // Reads go on; the positive signal is the service's read sessions showing up on the standby.
        const deadline = Date.now() + 60_000;
        let sessions = 0;
        while (sessions === 0 && Date.now() < deadline) {
          expect(await reads()).toEqual([event.id]);
          sessions = await readSessionsOnStandby().catch(() => 0);
          if (sessions === 0) await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(sessions, 'the host list found the standby again').toBeGreaterThan(0);
      } finally {
        await closeApp(t);
      }
    }, 120_000);

    it('a DATABASE_URL (a host list, or one host) whose password is wrong says so, without the password', async () => {
      const url = `postgres://reader:${WRONG_PASSWORD}@${cluster.primary.host},${cluster.standbys[0].host}/consent?target_session_attrs=read-write`;
      const result = await runCli(['migrate'], { DATABASE_URL: url, DATA_DIR: dataDir });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/credentials of user "reader" were refused/);
      expect(result.stderr).toMatch(/refused the password/);
      expect(result.stderr).not.toContain(WRONG_PASSWORD);
      expect(result.stderr).not.toMatch(/no host of DATABASE_URL/);
      // One host: the same words.
      const single = await runCli(['migrate'], {
        DATABASE_URL: `postgres://reader:${WRONG_PASSWORD}@${cluster.primary.host}/consent`,
        DATA_DIR: dataDir,
      });
      expect(single.code, single.stderr).toBe(1);
      expect(single.stderr).toMatch(/DATABASE_URL\) refused the password \(SQLSTATE 28P01/);
      expect(single.stderr).not.toContain(WRONG_PASSWORD);
    }, 60_000);
  },
);
