import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createClient } from '../helpers/http.ts';
import { type PgCluster, pgBinariesMissing, startPgCluster } from '../helpers/pg-cluster.ts';
import { freePort, runCli, type ServiceProcess, startService, waitReady } from '../helpers/processes.ts';
import {
  createReadySite,
  newSubjectId,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
} from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';

/**
 * Failover without a restart: the service is given a host list
 * (`postgres://primary,standby/db?target_session_attrs=read-write`) of a primary and a synchronous
 * standby this test starts; under a steady stream of decisions the primary is killed and the
 * standby promoted. The same service process must find the new primary by itself, and every
 * decision it acknowledged (201) must be in the evidence and in the consent state.
 *
 * It needs PostgreSQL's server binaries; it runs on every PostgreSQL run, and on the embedded run
 * only where they are installed.
 */
const missing = pgBinariesMissing();
if (missing && process.env.DATABASE_URL)
  throw new Error(`the failover test needs PostgreSQL's binaries: ${missing}`);

describe.skipIf(skipWith(missing))(
  `failover to a promoted standby${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let cluster: PgCluster;
    let service: ServiceProcess;
    let baseUrl: string;
    let liveKey: string;
    let site: ReadySite;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'failover-'));

    beforeAll(async () => {
      cluster = await startPgCluster(1);
      const admin = new pg.Client({ connectionString: cluster.url('postgres', [cluster.primary], '') });
      await admin.connect();
      await admin.query('create database consent');
      // The standby is streaming and counted for the synchronous commit before anything is written.
      for (let i = 0; ; i++) {
        const { rows } = await admin.query(
          "select sync_state from pg_stat_replication where application_name = 's1'",
        );
        if (rows[0]?.sync_state === 'quorum' || rows[0]?.sync_state === 'sync') break;
        if (i > 100) throw new Error(`standby s1 not synchronous: ${JSON.stringify(rows)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await admin.end();
      const env = {
        DATABASE_URL: cluster.url('consent', [cluster.primary, ...cluster.standbys]),
        DATA_DIR: dataDir,
      };
      const boot = await runCli(
        ['bootstrap', '--org', 'Failover', '--owner', 'owner@example.com', '--json'],
        env,
        60_000,
      );
      expect(boot.code, boot.stderr).toBe(0);
      liveKey = JSON.parse(boot.stdout).apiKeys.live;
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      service = startService(['serve'], {
        ...env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000',
        PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
      });
      await waitReady(baseUrl, service, 60_000);
      const t = { http: createClient(baseUrl), clock: { advance: () => {} } } as unknown as TestApp;
      site = await createReadySite(t, liveKey);
    }, 180_000);

    afterAll(async () => {
      service?.kill();
      await service?.exited;
      await cluster?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the service finds the promoted standby by itself; no acknowledged decision is lost', async () => {
      const acknowledged: Array<{ subjectId: string; eventId: string }> = [];
      let failed = 0;
      let killedAt = 0;
      let firstAfterKill = 0;
      let stop = false;
      const writer = async () => {
        while (!stop) {
          const subjectId = newSubjectId();
          const sentAt = Date.now();
          try {
            const res = await fetch(`${baseUrl}/v1/public/sites/${site.siteKey}/preferences`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
              body: JSON.stringify(preferencesBody(site, { subjectId })),
            });
            const body = (await res.json()) as { data?: { id: string } };
            if (res.status === 201 && body.data) {
              acknowledged.push({ subjectId, eventId: body.data.id });
              if (killedAt && sentAt > killedAt && !firstAfterKill) firstAfterKill = Date.now();
            } else {
              failed++;
              // What a visitor's SDK does: try again a little later.
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          } catch {
            failed++;
          }
        }
      };
      const writers = Array.from({ length: 4 }, writer);
      // Writes under way before the kill: a count of acknowledged ones, not a time (a loaded CI
      // machine acknowledged 13 in the 2 s a fixed wait once gave them).
      await expect.poll(() => acknowledged.length, { timeout: 60_000, interval: 100 }).toBeGreaterThan(20);
      const beforeKill = acknowledged.length;

      killedAt = Date.now();
      cluster.primary.kill();
      // The operator (or Patroni) promotes the synchronous standby a moment later.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const promotedAt = Date.now();
      await cluster.standbys[0].promote();
      const deadline = Date.now() + 30_000;
      while ((!firstAfterKill || acknowledged.length < beforeKill + 50) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      stop = true;
      await Promise.all(writers);
      expect(firstAfterKill, 'no write succeeded after the failover').toBeGreaterThan(0);
      expect(service.child.exitCode, 'the service process must not have exited').toBeNull();
      console.log(
        `failover: ${acknowledged.length} decisions acknowledged (${beforeKill} before the kill), ${failed} refused ` +
          `or failed; first write after the kill ${firstAfterKill - killedAt} ms after it (${firstAfterKill - promotedAt} ms after the promotion)`,
      );

      // Every acknowledged decision is in the evidence and in its subject's state, read from the new primary.
      const http = createClient(baseUrl);
      for (let i = 0; i < acknowledged.length; i += 100) {
        const batch = acknowledged.slice(i, i + 100);
        const res = await http.post('/v1/consent-state/lookups', {
          key: liveKey,
          body: { channelId: site.channelId, subjectIds: batch.map((a) => a.subjectId) },
        });
        expect(res.status, res.text).toBe(200);
        for (const [j, entry] of (
          res.body.data as Array<{ state: { purposes: Record<string, { eventId: string }> } | null }>
        ).entries()) {
          expect(entry.state?.purposes.analytics.eventId, batch[j].subjectId).toBe(batch[j].eventId);
        }
      }
      const direct = new pg.Client({ connectionString: cluster.url('consent', [cluster.standbys[0]], '') });
      await direct.connect();
      try {
        const { rows } = await direct.query('select id from evidence_events where id = any($1::text[])', [
          acknowledged.map((a) => a.eventId),
        ]);
        expect(rows.length).toBe(acknowledged.length);
      } finally {
        await direct.end();
      }
    }, 120_000);
  },
);
