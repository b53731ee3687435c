import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRY_CODES } from '../../src/modules/regions/iso-3166-codes.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * An answer grouped by region is bounded by what it returns, not by how many regions were
 * seen. With `groupBy`, at most 50 groups (those with the most decisions in the range, then the
 * most impressions, then by key), and one group "other" summing the rest per period; the totals stay
 * over everything. A date the database cannot hold is a 422, never a 500.
 *
 * Live channel, regions from trusted geo headers (a live channel ignores a declared region, and the
 * test environment's aggregates may be purged by another file).
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

const codes = COUNTRY_CODES.split(' ').slice(0, 65);
// 10 regions with 2 decisions each; 10 with 1 decision and 1 impression; 20 with 4 impressions;
// 25 with 3 impressions; and visitors of unknown region (null) with 5 impressions.
const twoDecisions = codes.slice(0, 10);
const oneDecision = codes.slice(10, 20);
const fourShown = codes.slice(20, 40);
const threeShown = codes.slice(40, 65);
// The top 50: decisions first (20 regions), then impressions: null (5), the 4s (20), and of the
// 3s (a tie) the first 9 by key. The other 16 regions of 3 impressions are "other".
const chosen = [...twoDecisions, ...oneDecision, null, ...fourShown, ...threeShown.slice(0, 9)];
const rest = threeShown.slice(9);

const day = (d: number) => new Date(Date.UTC(2026, 1, d, 12));

beforeAll(async () => {
  t = await startTestApp({
    env: { ...SITES_TEST_ENV, GEO_COUNTRY_HEADER: 'X-Geo-Country' },
  });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.liveKey);
  const present = t.clock.now();
  const headers = (region: string | null) => ({
    origin: SITE_ORIGIN,
    ...(region && { 'x-geo-country': region }),
  });
  const decide = async (d: number, region: string, decisions: Record<string, string>) => {
    t.clock.set(day(d));
    const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences`, {
      body: { subjectId: `sub-${region}-${Math.random()}`, decisions, configVersion: site.configVersion },
      headers: headers(region),
    });
    expect(res.status, res.text).toBe(201);
  };
  const show = async (d: number, region: string | null) => {
    t.clock.set(day(d));
    const res = await t.http.post(`/v1/public/sites/${site.siteKey}/impressions`, {
      body: { configVersion: site.configVersion },
      headers: headers(region),
    });
    expect(res.status, res.text).toBe(204);
  };
  for (const region of twoDecisions) {
    await decide(2, region, { analytics: 'granted', marketing: 'granted' });
    await decide(2, region, { analytics: 'denied', marketing: 'denied' });
  }
  for (const region of oneDecision) {
    await decide(3, region, { analytics: 'granted', marketing: 'denied' });
    await show(3, region);
  }
  for (const region of fourShown) for (const d of [2, 2, 4, 4]) await show(d, region);
  for (const region of threeShown) for (const d of [2, 3, 4]) await show(d, region);
  for (let i = 0; i < 5; i++) await show(3, null);
  await t.app.services.analytics.flushImpressions();
  t.clock.set(present);
});
afterAll(() => t?.close());

const analytics = (query: Record<string, string>) =>
  t.http.get(`/v1/analytics/consent?${new URLSearchParams({ channelId: site.channelId, ...query })}`, {
    key: tenant.liveKey,
  });

const sum = (rows: Array<Record<string, any>>, field: string) =>
  rows.reduce((n, r) => n + (r[field] as number), 0);

describe('consent analytics, bounded by what is returned', () => {
  it('groupBy region: the 50 groups with the most decisions, then impressions, and "other" summing the rest', async () => {
    const res = await analytics({ from: '2026-02-01', to: '2026-02-05', groupBy: 'region' });
    expect(res.status, res.text).toBe(200);
    const { data, meta } = res.body;
    const periods = ['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05'];
    expect([...new Set(data.map((r: any) => r.period))]).toEqual(periods);
    for (const period of periods) {
      const rows = data.filter((r: any) => r.period === period);
      // Exactly 50 named groups (every period carries each, zeros where it had nothing), "other" last.
      expect(rows).toHaveLength(51);
      expect(rows.at(-1).region).toBe('other');
      expect(new Set(rows.slice(0, 50).map((r: any) => r.region))).toEqual(new Set(chosen));
    }
    // "other" sums the 16 regions left out, per period, exactly.
    const other = data.filter((r: any) => r.region === 'other');
    expect(other.map((r: any) => [r.period, r.impressions, r.decisions])).toEqual([
      ['2026-02-01', 0, 0],
      ['2026-02-02', rest.length, 0],
      ['2026-02-03', rest.length, 0],
      ['2026-02-04', rest.length, 0],
      ['2026-02-05', 0, 0],
    ]);
    const cell = (period: string, region: string | null) =>
      data.find((r: any) => r.period === period && r.region === region);
    expect(cell('2026-02-02', twoDecisions[0])).toMatchObject({
      impressions: 0,
      decisions: 2,
      acceptAll: 1,
      rejectAll: 1,
      purposes: { analytics: { granted: 1, denied: 1 } },
    });
    expect(cell('2026-02-03', oneDecision[0])).toMatchObject({ impressions: 1, decisions: 1, custom: 1 });
    expect(cell('2026-02-03', null)).toMatchObject({ impressions: 5, decisions: 0 });
    expect(cell('2026-02-04', fourShown[0])).toMatchObject({ impressions: 2, decisions: 0 });
    // The totals are over every region, and equal the sum of the rows ("other" included).
    expect(meta.totals).toMatchObject({
      impressions: 170,
      decisions: 30,
      acceptAll: 10,
      rejectAll: 10,
      custom: 10,
    });
    expect(sum(data, 'impressions')).toBe(meta.totals.impressions);
    expect(sum(data, 'decisions')).toBe(meta.totals.decisions);
    // The same totals without groupBy.
    const plain = await analytics({ from: '2026-02-01', to: '2026-02-05' });
    expect(plain.body.meta.totals).toEqual(meta.totals);
  });

  it('the same choice over a month; fewer than 50 groups: no "other"', async () => {
    const month = await analytics({
      from: '2026-02-01',
      to: '2026-02-28',
      interval: 'month',
      groupBy: 'region',
    });
    expect(month.status, month.text).toBe(200);
    expect(month.body.data).toHaveLength(51);
    expect(month.body.data.at(-1)).toMatchObject({
      region: 'other',
      impressions: 3 * rest.length,
      decisions: 0,
    });
    // One regime only: it is the single group, and there is nothing to sum into "other".
    const regimes = await analytics({ from: '2026-02-01', to: '2026-02-28', groupBy: 'regime' });
    expect(regimes.status, regimes.text).toBe(200);
    expect(regimes.body.data).toHaveLength(28);
    expect(new Set(regimes.body.data.map((r: any) => r.regime))).toEqual(new Set(['opt-in']));
  });

  it('groupBy configVersion: versions 1..50 by number (a tie), and "other" as a string beside integers', async () => {
    const other = await createReadySite(t, tenant.liveKey);
    // A new policy version publishes a new config version: 55 in all.
    for (let v = other.configVersion; v < 55; v++) {
      const res = await t.http.patch(`/v1/channels/${other.channelId}`, {
        key: tenant.liveKey,
        body: {
          privacyPolicy: { url: 'https://shop.example.com/privacy', version: `v${v}`, retentionDays: 365 },
        },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.configVersion).toBe(v + 1);
    }
    const present = t.clock.now();
    t.clock.set(day(2));
    for (let v = 1; v <= 55; v++) {
      const res = await t.http.post(`/v1/public/sites/${other.siteKey}/impressions`, {
        body: { configVersion: v },
        headers: { origin: SITE_ORIGIN },
      });
      expect(res.status, res.text).toBe(204);
    }
    await t.app.services.analytics.flushImpressions();
    t.clock.set(present);
    const res = await t.http.get(
      `/v1/analytics/consent?channelId=${other.channelId}&from=2026-02-02&to=2026-02-02&groupBy=configVersion`,
      { key: tenant.liveKey },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((r: any) => r.configVersion)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => i + 1),
      'other',
    ]);
    expect(res.body.data.at(-1)).toMatchObject({ impressions: 5, decisions: 0 });
    expect(res.body.meta.totals.impressions).toBe(55);
  });

  it('422 for a day outside 1970..9999, on both stores (never a database error)', async () => {
    for (const query of <Array<Record<string, string>>>[
      { from: '0000-01-01' },
      { from: '0000-01-01', to: '0000-01-31' },
      { from: '1969-12-31', to: '1970-01-05' },
      { to: '0000-12-31' },
    ]) {
      const problem = expectProblemShape(await analytics(query), 422, 'validation_failed');
      expect(problem.errors.length).toBeGreaterThan(0);
    }
    expect((await analytics({ from: '1970-01-01', to: '1970-01-31' })).status).toBe(200);
    expect((await analytics({ from: '9999-12-01', to: '9999-12-31', interval: 'week' })).status).toBe(200);
  });
});
