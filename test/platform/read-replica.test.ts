import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { download, requestExport } from '../exports/helpers.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * DATABASE_READ_URL: evidence lists, consent-state reads and lookups, analytics and exports read
 * there; writes, and reads that must see them (an event by id, keys, channels), use DATABASE_URL.
 * A second database stands in for a replica that has none of this test's writes, so a read that
 * went there shows it; then the same server as both URLs shows everything. Such a database is not
 * a standby in recovery, so an export never reads it. When it stops answering, its reads are
 * served by DATABASE_URL (and show the writes), and return to it once it answers again.
 */
const databaseUrl = process.env.DATABASE_URL;

/**
 * A TCP front of the replica that a test can turn away: while refusing, it accepts each connection
 * and closes it at once (a server gone, behind a live address), counting them, so the test sees how
 * often the service tried.
 */
function replicaFront(target: { host: string; port: number }) {
  let refusing = false;
  let attempts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (refusing) {
      attempts++;
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    refuse() {
      refusing = true;
      attempts = 0;
      for (const socket of sockets) socket.destroy();
    },
    accept() {
      refusing = false;
    },
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(skipWith(postgresOnly()))(
  'DATABASE_READ_URL (PostgreSQL only: the embedded store has no replicas)',
  () => {
    const readDatabase = `${new URL(databaseUrl ?? 'postgres://x/none').pathname.slice(1)}_replica`;
    const urlOf = (database: string, port?: number) => {
      const url = new URL(databaseUrl ?? 'postgres://x/none');
      url.pathname = `/${database}`;
      if (port) {
        url.hostname = '127.0.0.1';
        url.port = String(port);
      }
      return url.toString();
    };
    let admin: pg.Client;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      // A migrated, empty copy: this file's database was cloned from a template before anything was written.
      const template = inject('postgresTemplate')?.template;
      await admin.query(`create database "${readDatabase}" template "${template}"`);
    });
    afterAll(async () => {
      await admin.query(`drop database if exists "${readDatabase}" with (force)`);
      await admin.end();
    });

    async function scenario(url: string, store?: Store) {
      store ??= createPostgresStore(databaseUrl!, { max: 5, readUrl: url });
      const t: TestApp = await startTestApp({ store, env: SITES_TEST_ENV });
      const tenant: Tenant = await t.tenant();
      const site: ReadySite = await createReadySite(t, tenant.testKey);
      const subjectId = newSubjectId();
      const event = await recordConsent(t, site, { subjectId });
      const key = tenant.testKey;
      /** Every read DATABASE_READ_URL serves, and what each shows of this test's one decision. */
      const reads = async () => {
        const list = await t.http.get(`/v1/evidence?channelId=${site.channelId}`, { key });
        const lookup = await t.http.post('/v1/consent-state/lookups', {
          key,
          body: { channelId: site.channelId, subjectIds: [subjectId] },
        });
        const state = await t.http.get(
          `/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`,
          {
            key,
          },
        );
        const analytics = await t.http.get(`/v1/analytics/consent?channelId=${site.channelId}`, { key });
        for (const res of [list, lookup, analytics]) expect(res.status, res.text).toBe(200);
        expect([200, 404]).toContain(state.status);
        return {
          list: list.body.data.map((e: { id: string }) => e.id) as string[],
          lookup: (lookup.body.data[0].state?.purposes.analytics.eventId ?? null) as string | null,
          state: state.status,
          decisions: analytics.body.meta.totals.decisions as number,
        };
      };
      const byId = await t.http.get(`/v1/evidence/${event.id}`, { key });
      const exported = async () => {
        const requested = await requestExport(t, key, { channelId: site.channelId, format: 'jsonl' });
        await t.worker.runDue();
        return download(t, key, requested.id);
      };
      return { t, store, event, byId, reads, exported };
    }

    const sawTheWrite = (eventId: string) => ({ list: [eventId], lookup: eventId, state: 200, decisions: 1 });
    const sawNothing = { list: [], lookup: null, state: 404, decisions: 0 };

    it('the same server as both URLs: every read sees the writes', async () => {
      const { t, store, event, byId, reads, exported } = await scenario(databaseUrl!);
      try {
        expect(byId.status).toBe(200);
        expect(await reads()).toEqual(sawTheWrite(event.id));
        expect((await exported()).text).toContain(event.id);
      } finally {
        await t.close();
        await store.close();
      }
    }, 120_000);

    it('lists, state reads, lookups and analytics read the replica; an export, an event by id and the writes use the primary', async () => {
      const { t, store, event, byId, reads, exported } = await scenario(urlOf(readDatabase));
      try {
        expect(byId.status, byId.text).toBe(200);
        expect(await reads()).toEqual(sawNothing);
        // Not a standby in recovery: it cannot say how far behind it is, so the export reads the primary.
        const file = await exported();
        expect(file.status).toBe(200);
        expect(file.text).toContain(event.id);
        const metrics = (await t.http.get('/metrics')).text;
        expect(metrics).toMatch(/consent_service_db_replica_fallbacks_total\{reason="not_a_standby"\} 1\b/);
      } finally {
        await t.close();
        await store.close();
      }
    }, 120_000);

    it('a replica that stops answering: its reads are served by the primary, /readyz stays 200, and they return once it answers', async () => {
      const target = new URL(databaseUrl!);
      const front = replicaFront({ host: target.hostname, port: Number(target.port || 5432) });
      const port = await front.listen();
      const store = createPostgresStore(databaseUrl!, {
        max: 5,
        readUrl: urlOf(readDatabase, port),
        replicaMaxRetryMs: 1000,
      });
      const { t, event, reads } = await scenario('', store);
      try {
        expect(await reads()).toEqual(sawNothing);
        expect((await t.http.get('/readyz')).body).toMatchObject({
          status: 'ok',
          primary: 'ok',
          replica: 'ok',
        });

        front.refuse();
        // The first read to find it down is served by the primary as well: no request fails. Reads
        // go on until the service asks the replica again (its back-off passed), and far outnumber
        // those attempts.
        let rounds = 0;
        const until = Date.now() + 10_000;
        while ((rounds < 10 || front.attempts() === 0) && Date.now() < until) {
          expect(await reads()).toEqual(sawTheWrite(event.id));
          rounds++;
        }
        expect(front.attempts(), 'the replica is asked again while it is down').toBeGreaterThan(0);
        expect(front.attempts()).toBeLessThan(rounds / 2);
        const ready = await t.http.get('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({ status: 'ok', primary: 'ok', replica: 'unavailable' });
        const metrics = (await t.http.get('/metrics')).text;
        const fallbacks = Number(
          /consent_service_db_replica_fallbacks_total\{reason="unavailable"\} (\d+)/.exec(metrics)?.[1],
        );
        expect(fallbacks).toBeGreaterThanOrEqual(40);
        expect(metrics).toMatch(/consent_service_db_replica_up 0\b/);

        front.accept();
        const deadline = Date.now() + 15_000;
        let state = '';
        while (Date.now() < deadline && state !== 'ok') {
          state = (await t.http.get('/readyz')).body.replica;
          if (state !== 'ok') await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(state, 'the replica is asked again once the back-off has passed').toBe('ok');
        expect(await reads()).toEqual(sawNothing);
      } finally {
        await t.close();
        await store.close();
        await front.close();
      }
    }, 120_000);
  },
);
