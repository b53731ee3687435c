import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The property: for random mixes of decisions (days, regions, sources, choices), the
 * aggregates GET /v1/analytics/consent answers equal a recount of the evidence read back through
 * GET /v1/evidence, per day and region, on the store the suite runs on. Live data: the days are in
 * the past, and another file's retention purge of test evidence must not empty what we recount.
 */
let t: TestApp;
let tenant: Tenant;
const DAY = 86_400_000;

beforeAll(async () => {
  // Live channels take no declared region: the visitor's region comes from trusted geo headers.
  t = await startTestApp({
    env: { ...SITES_TEST_ENV, GEO_COUNTRY_HEADER: 'X-Geo-Country', GEO_SUBDIVISION_HEADER: 'X-Geo-Region' },
  });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const decision = fc.record({
  day: fc.integer({ min: 0, max: 9 }),
  region: fc.constantFrom('FR', 'DE', 'US-CA', 'JP'),
  source: fc.constantFrom('banner', 'preference_center', 'gpc', 'import'),
  analytics: fc.boolean(),
  marketing: fc.boolean(),
});

const OPTIONAL = ['analytics', 'marketing'];

/** The counts of GET /v1/analytics/consent recomputed from evidence events. */
function recount(events: Array<Record<string, any>>) {
  const rows = new Map<string, Record<string, any>>();
  for (const e of events) {
    const id = `${e.recordedAt.slice(0, 10)} ${e.region}`;
    const row = rows.get(id) ?? {
      decisions: 0,
      acceptAll: 0,
      rejectAll: 0,
      custom: 0,
      gpc: 0,
      imports: 0,
      handoffs: 0,
      purposes: {},
    };
    rows.set(id, row);
    const granted = OPTIONAL.filter((k) => e.decisions[k] === 'granted').length;
    row.decisions++;
    if (granted === OPTIONAL.length) row.acceptAll++;
    else if (granted === 0) row.rejectAll++;
    else row.custom++;
    if (e.source === 'gpc') row.gpc++;
    if (e.source === 'import') row.imports++;
    for (const [key, value] of Object.entries(e.decisions)) {
      row.purposes[key] ??= { granted: 0, denied: 0 };
      row.purposes[key][value as string]++;
    }
  }
  return rows;
}

describe('consent analytics property', () => {
  it('the aggregates equal a recount of the evidence for any mix of decisions', async () => {
    const present = t.clock.now().getTime();
    const start = Date.UTC(2026, 0, 5, 10);
    await fc.assert(
      fc.asyncProperty(fc.array(decision, { minLength: 1, maxLength: 15 }), async (mix) => {
        const site = await createReadySite(t, tenant.liveKey);
        // Decisions of source import come from the channel's previous CMP (docs/guides/keep-the-choice.md).
        const imports = await t.http.patch(`/v1/channels/${site.channelId}`, {
          key: tenant.liveKey,
          body: {
            imports: [{ from: 'cookiebot', purposes: { statistics: 'analytics', marketing: 'marketing' } }],
          },
        });
        expect(imports.status, imports.text).toBe(200);
        site.configVersion = imports.body.data.configVersion;
        for (const [i, d] of mix.entries()) {
          t.clock.set(new Date(start + d.day * DAY + i * 1000));
          const [country] = d.region.split('-');
          const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences`, {
            body: {
              subjectId: `sub-property-${i}-${Math.random()}`,
              decisions: {
                analytics: d.analytics ? 'granted' : 'denied',
                marketing: d.marketing ? 'granted' : 'denied',
              },
              configVersion: site.configVersion,
              source: d.source,
              ...(d.source === 'import' && {
                importedFrom: {
                  cmp: 'cookiebot',
                  recordedAt: new Date(t.clock.now().getTime() - DAY).toISOString(),
                  value:
                    '{stamp:%27-1%27%2Cnecessary:true%2Cpreferences:false%2Cstatistics:true%2Cmarketing:false}',
                },
              }),
            },
            headers: {
              origin: SITE_ORIGIN,
              'x-geo-country': country,
              ...(d.region.includes('-') && { 'x-geo-region': d.region }),
            },
          });
          expect(res.status, res.text).toBe(201);
        }
        t.clock.set(new Date(present));
        const evidence = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=100`, {
          key: tenant.liveKey,
        });
        for (const e of evidence.body.data) expect(e.regionSource).toBe('header');
        const expected = recount(evidence.body.data);
        const res = await t.http.get(
          `/v1/analytics/consent?channelId=${site.channelId}&from=2026-01-05&to=2026-01-14&groupBy=region`,
          { key: tenant.liveKey },
        );
        expect(res.status, res.text).toBe(200);
        const actual = new Map<string, Record<string, any>>();
        for (const row of res.body.data) {
          if (row.decisions === 0) continue;
          const { period, region, impressions, ...counts } = row;
          actual.set(`${period} ${region}`, counts);
        }
        expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
        expect(res.body.meta.totals.decisions).toBe(mix.length);
      }),
      { numRuns: 10 },
    );
  });
});
