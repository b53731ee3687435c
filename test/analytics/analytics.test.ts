import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The counts of GET /v1/analytics/consent for a known mix of decisions over several
 * days and regions, exact for each interval and groupBy. Recorded with the clock in the past (the
 * test channel is fresh, so nothing else counts in it).
 */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const analytics = (query: Record<string, string>) =>
  t.http.get(`/v1/analytics/consent?${new URLSearchParams(query)}`, { key: tenant.testKey });

// 2026-03-02 is a Monday: the mix spans Mon 2 to Wed 11 March (two ISO weeks, one month).
const day = (d: number) => new Date(Date.UTC(2026, 2, d, 12));

describe('consent analytics', () => {
  let site: ReadySite;
  const present = new Date();

  beforeAll(async () => {
    site = await createReadySite(t, tenant.testKey);
    const record = async (
      d: number,
      n: number,
      decisions: Record<string, string>,
      extra: Record<string, unknown> = {},
      region = 'FR',
    ) => {
      t.clock.set(day(d));
      for (let i = 0; i < n; i++) {
        await t.http
          .post(`/v1/public/sites/${site.siteKey}/preferences?region=${region}`, {
            body: {
              subjectId: `sub-${d}-${region}-${i}-${Math.random()}`,
              decisions,
              configVersion: site.configVersion,
              ...extra,
            },
            headers: { origin: 'https://shop.example.com' },
          })
          .then((res) => expect(res.status, res.text).toBe(201));
      }
    };
    const ALL = { analytics: 'granted', marketing: 'granted' };
    const NONE = { analytics: 'denied', marketing: 'denied' };
    const SOME = { analytics: 'granted', marketing: 'denied' };
    await record(2, 12, ALL); // Monday, FR
    await record(3, 8, ALL, {}, 'US-CA');
    await record(3, 6, NONE);
    await record(10, 4, NONE, {}, 'DE'); // the next week
    await record(10, 7, SOME);
    await record(11, 3, NONE, { source: 'gpc' }, 'US-CA');
    // 100 impressions over the same days and regions, counted in memory and written by one flush.
    const shown = async (d: number, n: number, region: string) => {
      t.clock.set(day(d));
      for (let i = 0; i < n; i++) {
        const res = await t.http.post(`/v1/public/sites/${site.siteKey}/impressions?region=${region}`, {
          body: { configVersion: site.configVersion, language: 'en' },
          headers: { origin: 'https://shop.example.com' },
        });
        expect(res.status, res.text).toBe(204);
      }
    };
    await shown(2, 30, 'FR');
    await shown(3, 20, 'US-CA');
    await shown(3, 20, 'FR');
    await shown(10, 10, 'DE');
    await shown(10, 15, 'FR');
    await shown(11, 5, 'US-CA');
    await t.app.services.analytics.flushImpressions();
    t.clock.set(present);
  });

  it('counts the mix exactly per day, with zero days present, and totals', async () => {
    const res = await analytics({ channelId: site.channelId, from: '2026-03-01', to: '2026-03-12' });
    expect(res.status, res.text).toBe(200);
    const { data, meta } = res.body;
    expect(data.map((r: any) => r.period)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`),
    );
    const byDay = Object.fromEntries(data.map((r: any) => [r.period, r]));
    expect(byDay['2026-03-01']).toEqual({
      period: '2026-03-01',
      impressions: 0,
      decisions: 0,
      acceptAll: 0,
      rejectAll: 0,
      custom: 0,
      gpc: 0,
      imports: 0,
      handoffs: 0,
      purposes: {},
    });
    expect(byDay['2026-03-03']).toMatchObject({
      decisions: 14,
      acceptAll: 8,
      rejectAll: 6,
      custom: 0,
      gpc: 0,
    });
    expect(byDay['2026-03-03'].purposes).toEqual({
      necessary: { granted: 14, denied: 0 },
      analytics: { granted: 8, denied: 6 },
      marketing: { granted: 8, denied: 6 },
    });
    expect(byDay['2026-03-11']).toMatchObject({ decisions: 3, rejectAll: 3, gpc: 3 });
    expect(meta.totals).toEqual({
      impressions: 100,
      decisions: 40,
      acceptAll: 20,
      rejectAll: 13,
      custom: 7,
      gpc: 3,
      imports: 0,
      handoffs: 0,
      purposes: {
        necessary: { granted: 40, denied: 0 },
        analytics: { granted: 27, denied: 13 },
        marketing: { granted: 20, denied: 20 },
      },
    });
  });

  it('weeks start on Monday and months on the 1st; groupBy region, regime and configVersion', async () => {
    const weeks = (
      await analytics({ channelId: site.channelId, from: '2026-03-01', to: '2026-03-12', interval: 'week' })
    ).body.data;
    expect(weeks.map((r: any) => [r.period, r.decisions])).toEqual([
      ['2026-02-23', 0],
      ['2026-03-02', 26],
      ['2026-03-09', 14],
    ]);
    const months = (
      await analytics({ channelId: site.channelId, from: '2026-03-01', to: '2026-03-31', interval: 'month' })
    ).body.data;
    expect(months.map((r: any) => [r.period, r.decisions, r.acceptAll, r.rejectAll, r.custom])).toEqual([
      ['2026-03-01', 40, 20, 13, 7],
    ]);

    const regions = (
      await analytics({
        channelId: site.channelId,
        from: '2026-03-02',
        to: '2026-03-31',
        interval: 'month',
        groupBy: 'region',
      })
    ).body.data;
    expect(regions.map((r: any) => [r.region, r.impressions, r.decisions, r.gpc])).toEqual([
      ['DE', 10, 4, 0],
      ['FR', 65, 25, 0],
      ['US-CA', 25, 11, 3],
    ]);
    const regimes = (
      await analytics({ channelId: site.channelId, from: '2026-03-02', to: '2026-03-03', groupBy: 'regime' })
    ).body.data;
    // Every period carries every group of the range, zeros where it had none.
    expect(regimes.map((r: any) => [r.period, r.regime, r.decisions])).toEqual([
      ['2026-03-02', 'opt-in', 12],
      ['2026-03-03', 'opt-in', 14],
    ]);
    // A quiet range with groupBy: the bare periods, with zeros.
    const quiet = (
      await analytics({ channelId: site.channelId, from: '2026-04-01', to: '2026-04-02', groupBy: 'region' })
    ).body.data;
    expect(quiet.map((r: any) => [r.period, 'region' in r, r.decisions])).toEqual([
      ['2026-04-01', false, 0],
      ['2026-04-02', false, 0],
    ]);
    const versions = (
      await analytics({
        channelId: site.channelId,
        from: '2026-03-02',
        to: '2026-03-12',
        interval: 'month',
        groupBy: 'configVersion',
      })
    ).body.data;
    expect(versions).toEqual([
      expect.objectContaining({ period: '2026-03-01', configVersion: site.configVersion, decisions: 40 }),
    ]);
  });

  it('impressions: 204 for a registered origin only, 422 for a version the site never had; per-process Prometheus counters', async () => {
    const post = (body: unknown, origin = 'https://shop.example.com') =>
      t.http.post(`/v1/public/sites/${site.siteKey}/impressions`, { body, headers: { origin } });
    expectProblemShape(
      await post({ configVersion: site.configVersion }, 'https://evil.example.net'),
      403,
      'origin_not_allowed',
    );
    expectProblemShape(await post({ configVersion: site.configVersion + 1 }), 422, 'validation_failed');
    expectProblemShape(await post({ configVersion: 0 }), 422, 'validation_failed');
    const metrics = await t.app.services.metrics.scrape(() => {});
    expect(metrics).toMatch(/^consent_service_impressions_total 100$/m);
    const value = (outcome: string) =>
      Number(
        metrics.match(
          new RegExp(`^consent_service_decisions_total\\{outcome="${outcome}"\\} (\\d+)`, 'm'),
        )?.[1],
      );
    expect(value('accept_all')).toBe(20);
    expect(value('reject_all')).toBe(13);
    expect(value('custom')).toBe(7);
    expect(metrics).not.toContain(site.channelId);
    expect(metrics).not.toContain(tenant.organizationId);
  });

  it('the retention purge leaves the counts; test-environment counts go after a day, live ones stay', async () => {
    // January 2025: before any other file's data, so the global purges here reach only this test's.
    const jan = (d: number) => new Date(Date.UTC(2025, 0, d, 12));
    const live = await createReadySite(t, tenant.liveKey, { retentionDays: 1 });
    const test = await createReadySite(t, tenant.testKey);
    const count = async (target: ReadySite) =>
      (
        await t.http.get(
          `/v1/analytics/consent?channelId=${target.channelId}&from=2025-01-01&to=2025-01-31&interval=month`,
          {
            key: target.key,
          },
        )
      ).body.meta.totals.decisions;
    t.clock.set(jan(5));
    for (const target of [live, test]) {
      const res = await t.http.post(`/v1/public/sites/${target.siteKey}/preferences`, {
        body: {
          subjectId: `sub-${Math.random()}`,
          decisions: { analytics: 'granted' },
          configVersion: target.configVersion,
        },
        headers: { origin: 'https://shop.example.com' },
      });
      expect(res.status, res.text).toBe(201);
    }
    // Two days later both events are past their retention (1 day live, 24 hours test) and purged; the counts stay.
    t.clock.set(jan(7));
    await t.app.services.evidence.purgeExpired();
    expect(
      (await t.http.get(`/v1/evidence?channelId=${live.channelId}`, { key: tenant.liveKey })).body.data,
    ).toEqual([]);
    expect([await count(live), await count(test)]).toEqual([1, 1]);
    // The test environment's counts of days over a day old go; the live ones stay.
    await t.app.services.analytics.purgeTest();
    t.clock.set(present);
    expect([await count(live), await count(test)]).toEqual([1, 0]);
  });

  it('422 for a range over 366 days, from after to, or an impossible date; 404 for an unknown channel', async () => {
    for (const query of <Array<Record<string, string>>>[
      { from: '2025-03-01', to: '2026-03-02' },
      { from: '2026-03-05', to: '2026-03-04' },
      { from: '2026-02-30', to: '2026-03-04' },
      { interval: 'year' },
    ]) {
      expectProblemShape(await analytics({ channelId: site.channelId, ...query }), 422, 'validation_failed');
    }
    expect(
      (await analytics({ channelId: site.channelId, from: '2025-03-02', to: '2026-03-02' })).status,
    ).toBe(200);
    expectProblemShape(await analytics({ channelId: 'ch_unknown' }), 404, 'not_found');
    // The default range: the last 30 days, today included.
    const recent = (await analytics({ channelId: site.channelId })).body.data;
    expect(recent).toHaveLength(30);
    expect(recent.at(-1).period).toBe(t.clock.now().toISOString().slice(0, 10));
  });
});
