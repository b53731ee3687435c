import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { embeddedOnly, postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * One organization's heavy reads must not starve another organization's visitors. The heavy
 * organization's channel holds a year of analytics for many regions (written straight into the
 * aggregates, as a year of traffic would leave them); eight of its keys read that year grouped by
 * region, all at once, while another organization's visitors record decisions one after another.
 *
 * Embedded store (one connection): a decision must wait for at most a slice of a heavy read, never
 * for the queue of them. Measured as a ratio in this run: every decision made during the reads takes
 * less than two heavy reads alone, a quarter of the queue (before, a decision waited behind all eight:
 * nine to ten times one read; since, a third to a half of one, on a machine with ten times its cores'
 * worth of load).
 *
 * PostgreSQL (a pool): one organization's heavy statements never hold more of the pool at once than
 * its share, sampled from pg_stat_activity while the reads run.
 */
let t: TestApp;
let heavy: Tenant;
let heavySite: ReadySite;
let victimSite: ReadySite;
let readers: string[];

const TODAY = new Date(Date.UTC(2026, 5, 15, 12));
const day = (offset: number) => new Date(TODAY.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
const READERS = 8;
const REGIONS = 8;
const SHARDS = 4;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  t.clock.set(TODAY);
  heavy = await t.tenant();
  const victim = await t.tenant();
  heavySite = await createReadySite(t, heavy.liveKey, { name: 'Heavy' });
  victimSite = await createReadySite(t, victim.liveKey, { name: 'Victim' });
  readers = [];
  for (let i = 0; i < READERS; i++)
    readers.push((await heavy.key(['evidence:read'], { environment: 'live' })).secret);
  const db = rawSql(t.store);
  const rows = sql`from (select (${day(0)}::date - n) as d from generate_series(0, 365) n) y,
    (select 'R' || lpad(r::text, 3, '0') as region from generate_series(1, ${REGIONS}) r) g,
    generate_series(1, ${SHARDS}) s`;
  await db.execute(sql`insert into consent_analytics_daily (organization_id, environment, channel_id, day,
      region, regime, config_version, shard, impressions, decisions, accept_all, reject_all, custom, gpc)
    select ${heavy.organizationId}, 'live', ${heavySite.channelId}, y.d, g.region, 'opt-in',
      ${heavySite.configVersion}, s, 10, 5, 2, 2, 1, 0 ${rows}`);
  await db.execute(sql`insert into consent_analytics_purposes (organization_id, environment, channel_id, day,
      region, regime, config_version, purpose_key, shard, granted, denied)
    select ${heavy.organizationId}, 'live', ${heavySite.channelId}, y.d, g.region, 'opt-in',
      ${heavySite.configVersion}, p, s, 3, 2 ${rows}, unnest(array['analytics', 'marketing']) p`);
});
afterAll(() => t?.close());

const yearByRegion = (key: string) =>
  t.http.get(
    `/v1/analytics/consent?${new URLSearchParams({ channelId: heavySite.channelId, from: day(365), to: day(0), groupBy: 'region' })}`,
    { key },
  );

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** The victim's visitors, one decision after another until `done` settles; each decision's time. */
async function decisionsUntil(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const times: number[] = [];
  for (let i = 0; !finished || times.length === 0; i++) {
    const { ms, value } = await timed(() =>
      t.http.post(`/v1/public/sites/${victimSite.siteKey}/preferences`, {
        headers: { origin: SITE_ORIGIN },
        body: {
          subjectId: `visitor-${i}-${Math.random()}`,
          decisions: { analytics: 'granted', marketing: 'denied' },
          configVersion: victimSite.configVersion,
        },
      }),
    );
    expect(value.status, value.text).toBe(201);
    times.push(ms);
  }
  return times;
}

describe.skipIf(skipWith(embeddedOnly()))('embedded store: heavy reads take turns', () => {
  it('another organization’s decisions wait for a slice of a heavy read, never for the queue of them', async () => {
    const first = await yearByRegion(readers[0]);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(366 * REGIONS);
    const alone = (await timed(() => yearByRegion(readers[0]))).ms;

    const reads = Promise.all(
      readers.map(async (key) => {
        const res = await yearByRegion(key);
        expect(res.status, res.text).toBe(200);
      }),
    );
    const decisions = await decisionsUntil(reads);
    await reads;
    const slowest = Math.max(...decisions);
    expect(
      slowest,
      `decisions during ${READERS} heavy reads: ${decisions.length}, slowest ${slowest.toFixed(0)} ms; one heavy read alone: ${alone.toFixed(0)} ms`,
    ).toBeLessThan(alone * (READERS / 4));
  }, 120_000);
});

describe.skipIf(skipWith(postgresOnly()))('PostgreSQL: heavy reads hold a share of the pool', () => {
  it('one organization’s heavy statements never hold more than its share of the pool at once', async () => {
    const { perOrganization } = t.store.heavyReads.limits;
    expect(perOrganization).toBeLessThan(READERS);
    // Its own connection: a sample never waits for the pool it watches.
    const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await watcher.connect();
    try {
      const reads = Promise.all(readers.map((key) => yearByRegion(key)));
      let settled = false;
      void reads.finally(() => {
        settled = true;
      });
      const watching = (async () => {
        let most = 0;
        let samples = 0;
        while (!settled) {
          const { rows } = await watcher.query(`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and state = 'active'
              and query like '%consent_analytics%' and query not like '%pg_stat_activity%'`);
          most = Math.max(most, rows[0].n);
          samples++;
        }
        return { most, samples };
      })();
      const decisions = await decisionsUntil(reads);
      for (const res of await reads) expect(res.status, res.text).toBe(200);
      const { most, samples } = await watching;
      expect(decisions.length).toBeGreaterThan(0);
      expect(most, `most heavy statements at once in ${samples} samples`).toBeLessThanOrEqual(
        perOrganization,
      );
    } finally {
      await watcher.end();
    }
  }, 120_000);
});
