import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_LOCK_TIMEOUT_MS } from '../../src/modules/evidence/retention-locks.ts';
import { createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * Retention beside what a tenant does: a long read of evidence (pg_dump, an export) or a partition
 * owned by another database role never stops the run, and the run never makes another tenant wait.
 * Events are recorded with the manual clock a day back and purged at the real present, in this
 * file's own database.
 */
const databaseUrl = process.env.DATABASE_URL;
const HOUR = 3600_000;
const TOKEN = 'retention-locks-metrics-token';

/** `evidence_events_test_pYYYYMMDDHH`: the test partition of the hour holding `at`. */
const testHourOf = (at: Date) =>
  `evidence_events_test_p${at.toISOString().slice(0, 13).replace(/[-T]/g, '')}`;

async function scrape(t: TestApp): Promise<string> {
  const res = await t.http.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function exists(t: TestApp, table: string): Promise<boolean> {
  const result = await rawSql(t.store).execute(sql`select to_regclass(${table}) is not null as found`);
  return (result as unknown as { rows: Array<{ found: boolean }> }).rows[0].found;
}

/** An expired test hour holding one decision of `site`, recorded `hoursAgo` before the clock's present. */
async function expiredHour(t: TestApp, site: ReadySite, hoursAgo: number): Promise<string> {
  const present = t.clock.now();
  const at = new Date(present.getTime() - hoursAgo * HOUR);
  await rawSql(t.store).execute(
    sql`select evidence_partition_create('test', ${at.toISOString()}::timestamptz)`,
  );
  t.clock.set(at);
  await recordConsent(t, site);
  t.clock.set(present);
  return testHourOf(at);
}

describe.skipIf(skipWith(postgresOnly()))(
  'retention beside a long read (PostgreSQL only: the embedded store serves one session at a time, so no read is ever open while retention runs there)',
  () => {
    let t: TestApp;
    let tenant: Tenant;
    let other: Tenant;
    let reader: pg.Client | null = null;

    beforeAll(async () => {
      t = await startTestApp({ env: { ...SITES_TEST_ENV, METRICS_TOKEN: TOKEN } });
      tenant = await t.tenant();
      other = await t.tenant();
    });
    afterAll(async () => {
      await reader?.end().catch(() => {});
      await t?.close();
    });

    it('leaves a partition it cannot detach at once for the next run, while other tenants record decisions', async () => {
      const site = await createReadySite(t, tenant.testKey);
      const otherTest = await createReadySite(t, other.testKey);
      const otherLive = await createReadySite(t, other.liveKey);
      const hour = await expiredHour(t, site, 26);

      // A long read of test evidence, as pg_dump or a long export holds one: its lock on the test
      // side's table lasts until its transaction ends.
      reader = new pg.Client({ connectionString: databaseUrl });
      await reader.connect();
      await reader.query('begin isolation level repeatable read');
      await reader.query(`select count(*) from evidence_events where environment = 'test'`);

      // Another tenant's decisions, test and live (they share the consent write's statement), for as
      // long as the run lasts: before retention bounded its lock waits, its DETACH queued behind the
      // read, and every one of these behind the DETACH, until the read ended.
      let running = true;
      let recorded = 0;
      const decisions = (async () => {
        while (running) {
          await Promise.all([recordConsent(t, otherTest), recordConsent(t, otherLive)]);
          recorded += 2;
        }
      })();
      const run = await t.app.services.evidence.purgeExpired();
      running = false;
      await decisions;

      expect(run.deferred).toContainEqual(
        expect.objectContaining({
          step: 'drop_partition',
          reason: 'lock_timeout',
          what: hour,
          code: '55P03',
        }),
      );
      expect(run.droppedPartitions).not.toContain(hour);
      expect(await exists(t, hour)).toBe(true);
      expect(recorded).toBeGreaterThan(0);
      // Still open: the run did not wait for it to end.
      expect((await reader.query('select 1 as open')).rows[0].open).toBe(1);
      let text = await scrape(t);
      expect(
        sample(text, 'consent_service_retention_deferred_total{step="drop_partition",reason="lock_timeout"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'consent_service_retention_partitions_waiting')).toBe(1);

      // The read ends: the next run drops the hour.
      await reader.query('commit');
      const next = await t.app.services.evidence.purgeExpired();
      expect(next.droppedPartitions).toContain(hour);
      expect(next.deferred).toEqual([]);
      expect(await exists(t, hour)).toBe(false);
      text = await scrape(t);
      expect(sample(text, 'consent_service_retention_partitions_waiting')).toBe(0);
      // Closed here: the next test opens a reader of its own (afterAll ends only one left open).
      await reader.end();
      reader = null;
    }, 60_000);

    it(`waits at most ${RETENTION_LOCK_TIMEOUT_MS} ms for a lock: a tenant queued behind its DETACH is let go`, async () => {
      const site = await createReadySite(t, tenant.testKey);
      const hour = await expiredHour(t, site, 27);
      reader = new pg.Client({ connectionString: databaseUrl });
      await reader.connect();
      await reader.query('begin');
      await reader.query(`select count(*) from evidence_events where environment = 'test'`);
      // The run's DETACH waits for the reader; a tenant's read arriving meanwhile queues behind it.
      let settled = false;
      const run = t.app.services.evidence.purgeExpired().finally(() => {
        settled = true;
      });
      const queued = new pg.Client({ connectionString: databaseUrl });
      await queued.connect();
      try {
        // The positive signal that the DETACH's lock request is in the queue.
        let seen = false;
        while (!seen && !settled) {
          const { rows } =
            await queued.query(`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'evidence_events_test' and l.mode = 'AccessExclusiveLock' and not l.granted`);
          seen = rows[0].n > 0;
        }
        expect(seen, 'the run asked for the lock of the test side').toBe(true);
        const page = queued.query(`select count(*) from evidence_events where environment = 'test'`);
        const [done] = await Promise.all([run, page]);
        expect(done.deferred).toContainEqual(expect.objectContaining({ what: hour, reason: 'lock_timeout' }));
        expect(await exists(t, hour)).toBe(true);
      } finally {
        await queued.end();
        await reader.query('commit');
        await reader.end();
        reader = null;
      }
    }, 60_000);
  },
);

/** Whether the test's database user may make the service's role (a superuser, or CREATEROLE). */
async function mayMakeRoles(): Promise<boolean> {
  if (!databaseUrl) return false;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select rolsuper or rolcreaterole as may from pg_roles where rolname = current_user',
    );
    return rows[0].may === true;
  } finally {
    await client.end();
  }
}

describe.skipIf(
  skipWith(
    postgresOnly() ??
      (!(await mayMakeRoles()) && 'the database user may not create roles (needs superuser or CREATEROLE)'),
  ),
)(
  'retention with a partition another database role owns (PostgreSQL only, as a user that may create roles: the embedded store has one role, which owns everything)',
  () => {
    const role = `retention_svc_${randomBytes(4).toString('hex')}`;
    let admin: pg.Client;
    let store: Store;
    let t: TestApp;
    let tenant: Tenant;
    const warnings: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      // The service's role owns every table, as when it ran the migrations; the test's own role
      // (a superuser) stands for the operator or restore that made a partition by hand.
      await admin.query(`create role ${role} login`);
      await admin.query(`grant create, usage on schema public to ${role}`);
      await admin.query(`do $$ declare r record; begin
        for r in select c.relname, c.relkind from pg_class c
          where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'S')
            -- a sequence a column owns follows its table
            and (c.relkind <> 'S' or not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i'))) loop
          execute format('alter %s %I owner to %I', case r.relkind when 'S' then 'sequence' else 'table' end, r.relname, '${role}');
        end loop; end $$`);
      const url = new URL(databaseUrl!);
      url.username = role;
      url.password = '';
      store = createPostgresStore(url.toString(), { max: 4 });
      const logs = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) {
            const entry = JSON.parse(line);
            if (entry.level === 40) warnings.push(entry);
          }
          done();
        },
      });
      t = await startTestApp({
        store,
        env: { ...SITES_TEST_ENV, METRICS_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
        logger: { level: 'warn', stream: logs },
      });
      tenant = await t.tenant();
    });
    afterAll(async () => {
      await t?.close();
      await store?.close();
      await admin.query(`reassign owned by ${role} to current_user`);
      await admin.query(`drop owned by ${role}`);
      await admin.query(`drop role ${role}`);
      await admin.end();
    });

    it('drops the partitions it may, leaves the other one and says so in /metrics and the log', async () => {
      const site = await createReadySite(t, tenant.testKey);
      const present = t.clock.now();
      const foreignAt = new Date(present.getTime() - 30 * HOUR);
      const foreign = testHourOf(foreignAt);
      // Made by the other role before the event arrives, so the event is routed into it.
      await admin.query(`select evidence_partition_create('test', $1::timestamptz)`, [
        foreignAt.toISOString(),
      ]);
      t.clock.set(foreignAt);
      await recordConsent(t, site);
      t.clock.set(present);
      const own = await expiredHour(t, site, 29);

      await t.worker.runDue();

      expect(await exists(t, own)).toBe(false);
      expect(await exists(t, foreign)).toBe(true);
      const text = await scrape(t);
      expect(
        sample(text, 'consent_service_retention_deferred_total{step="drop_partition",reason="permission"}'),
      ).toBe(1);
      expect(sample(text, 'consent_service_retention_partitions_waiting')).toBe(1);
      const warning = warnings.find((w) => w.target === foreign);
      expect(warning).toMatchObject({ step: 'drop_partition', reason: 'permission', sqlstate: '42501' });
      expect(String(warning?.msg)).toMatch(/another database role owns it.*OWNER TO/);
    }, 60_000);
  },
);
