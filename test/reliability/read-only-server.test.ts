import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createClient } from '../helpers/http.ts';
import { freePort, runCli, type ServiceProcess, startService, waitReady } from '../helpers/processes.ts';
import { createReadySite, preferencesBody, type ReadySite, SITE_ORIGIN } from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * The server behind DATABASE_URL turns read-only under the service (a demoted primary behind a
 * virtual address or PgBouncer): writes get SQLSTATE 25006 on connections the pool
 * already trusts. The service must answer 503 with Retry-After (never 500), search for a read-write
 * server again, and write as soon as the server is read-write again, without a restart and without
 * keeping the read-only sessions it opened meanwhile.
 *
 * The database is made read-only for new sessions (ALTER DATABASE … SET default_transaction_read_only),
 * not the whole server, so the other test files sharing this PostgreSQL are not touched.
 */
const databaseUrl = process.env.DATABASE_URL;

describe.skipIf(skipWith(postgresOnly()))(
  `a read-write server that turns read-only${databaseUrl ? '' : ' (skipped: PostgreSQL only; the embedded store has no server to demote)'}`,
  () => {
    let service: ServiceProcess;
    let baseUrl: string;
    let site: ReadySite;
    let admin: pg.Client;
    let database: string;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-only-'));

    const post = () =>
      fetch(`${baseUrl}/v1/public/sites/${site.siteKey}/preferences`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
        body: JSON.stringify(preferencesBody(site)),
      });

    /** Ends the service's sessions on this database (they are idle between requests). */
    async function endSessions() {
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [database],
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    beforeAll(async () => {
      const url = new URL(databaseUrl as string);
      database = url.pathname.slice(1);
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      url.searchParams.set('target_session_attrs', 'read-write');
      const env = { DATABASE_URL: url.toString(), DATA_DIR: dataDir };
      const boot = await runCli(
        ['bootstrap', '--org', 'Read only', '--owner', 'owner@example.com', '--json'],
        env,
      );
      expect(boot.code, boot.stderr).toBe(0);
      const liveKey = JSON.parse(boot.stdout).apiKeys.live;
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      service = startService(['serve'], { ...env, PORT: String(port), LOG_LEVEL: 'warn' });
      await waitReady(baseUrl, service, 60_000);
      const t = { http: createClient(baseUrl), clock: { advance: () => {} } } as unknown as TestApp;
      site = await createReadySite(t, liveKey);
    }, 120_000);

    afterAll(async () => {
      await admin?.query(`alter database "${database}" reset default_transaction_read_only`).catch(() => {});
      await admin?.end();
      service?.kill();
      await service?.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers 503 while the server is read-only and writes again once it is read-write, without a restart', async () => {
      expect((await post()).status).toBe(201);

      await admin.query(`alter database "${database}" set default_transaction_read_only = on`);
      // The pool's idle sessions end; the ones it opens next are read-only, and the first write on
      // one gets 25006 from a server the pool still trusts.
      await endSessions();
      const refused: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await post();
        refused.push(res.status);
        if (res.status === 503) {
          expect(res.headers.get('retry-after')).toBeTruthy();
          expect(res.headers.get('content-type')).toContain('application/problem+json');
        }
      }
      expect(refused, 'a write on a read-only server is a 503, never a 500 or a 201').toEqual([
        503, 503, 503, 503, 503,
      ]);

      // The server is read-write again; the sessions opened while it was read-only stay read-only
      // (the setting is read when a session starts), so the service must not keep them.
      await admin.query(`alter database "${database}" reset default_transaction_read_only`);
      const statuses: number[] = [];
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const status = (await post()).status;
        statuses.push(status);
        if (statuses.slice(-10).length === 10 && statuses.slice(-10).every((s) => s === 201)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(
        statuses.slice(-10),
        `statuses after the server turned read-write: ${statuses.join(',')}`,
      ).toEqual(Array(10).fill(201));
      expect(service.child.exitCode, 'the service process must not have exited').toBeNull();
    }, 60_000);
  },
);
