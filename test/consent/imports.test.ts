import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDecisionCookie } from '../../src/shared/decision-cookie.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * Decisions imported from the site's previous CMP (docs/guides/keep-the-choice.md): the preferences
 * write takes source "import" with importedFrom {cmp, recordedAt, value}, for a CMP the notice
 * imports from, a choice not in the future and younger than consentMaxAgeDays, a raw cookie of at
 * most 4,096 printable characters. The event's own recordedAt is the import's; evidence lists filter
 * source=import and the analytics count imports apart.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let versionWithout: number;
const DAY = 86_400_000;
const OPTANON =
  'isGpcEnabled=0&datestamp=Mon+Mar+02+2026+09%3A15%3A00+GMT%2B0100&version=202401.1.0&groups=C0001%3A1%2CC0002%3A1%2CC0004%3A0';

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, TRUST_PROXY: 'true' } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  versionWithout = site.configVersion;
  const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: {
      firstPartyPath: '/consent',
      imports: [
        { from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } },
        { from: 'tcf', purposes: { '1': 'analytics', '4': 'marketing' } },
      ],
    },
  });
  expect(patched.status, patched.text).toBe(200);
  site.configVersion = patched.body.data.configVersion;
});
afterAll(() => t?.close());

const ago = (ms: number) => new Date(t.clock.now().getTime() - ms).toISOString();
const imported = (overrides: Record<string, unknown> = {}) => ({
  source: 'import',
  importedFrom: { cmp: 'onetrust', recordedAt: ago(10 * DAY), value: OPTANON, ...overrides },
});

describe('source "import"', () => {
  it('records the decision with importedFrom; its own recordedAt is the import’s', async () => {
    // An offset and fractional seconds are taken, and kept as whole seconds in UTC.
    const chosen = new Date(t.clock.now().getTime() - 10 * DAY);
    const given = new Date(chosen.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const withOffset = `${given.slice(0, 19)}.123${given.slice(23)}`;
    const body = preferencesBody(site, imported({ recordedAt: withOffset }));
    const res = await postPreferences(t, site.siteKey, body, {
      headers: { 'x-forwarded-host': 'shop.example.com', 'x-forwarded-proto': 'https' },
    });
    expect(res.status, res.text).toBe(201);
    const event = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey });
    const expectedAt = `${new Date(Math.floor(chosen.getTime() / 1000) * 1000).toISOString().slice(0, 19)}Z`;
    expect(event.body.data).toMatchObject({
      source: 'import',
      importedFrom: { cmp: 'onetrust', recordedAt: expectedAt, value: OPTANON },
      recordedAt: res.body.data.recordedAt,
    });
    expect(event.body.data.recordedAt).not.toBe(expectedAt);
    // The decision cookie is as old as the choice made in the previous CMP.
    const [cookie] = res.headers.getSetCookie();
    expect(readDecisionCookie(cookie.split('; ')[0], site.siteKey)?.t).toBe(Date.parse(expectedAt));

    const listed = await t.http.get(`/v1/evidence?channelId=${site.channelId}&source=import`, {
      key: tenant.testKey,
    });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(res.body.data.id);
    const banner = await t.http.get(`/v1/evidence?channelId=${site.channelId}&source=banner`, {
      key: tenant.testKey,
    });
    expect(banner.body.data.map((e: { id: string }) => e.id)).not.toContain(res.body.data.id);
  });

  it('a minute of the visitor’s clock ahead is taken; the analytics count imports apart', async () => {
    const ahead = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, imported({ recordedAt: ago(-60_000) })),
    );
    expect(ahead.status, ahead.text).toBe(201);
    const tcf = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(
        site,
        imported({
          cmp: 'tcf',
          value:
            'CQHs7EAQHs7EAAGABBENBXFgAP_gAEPgAAqIKxtX_G__bWlr8X73aftkeY1P9_h77sQxBhfJE-4FzLvW_JwXx2ExNA36tqIKmRIAu3TBIQNlHJDURVCgaogVryDMaEyUoTNKJ6BkiFMRI2dYCFxvm4tjeQCY5vr991d52R-t7dr83dzyy4hHn3a5_2S1WJCdA5-tDfv9bROb-9IOd_x8v4v4_F_pE2_eT1l_tWvp7D9-cts7_XW89_fff_9Ln_-uB_-_3_vRXAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        }),
      ),
    );
    expect(tcf.status, tcf.text).toBe(201);
    const res = await t.http.get(`/v1/analytics/consent?channelId=${site.channelId}`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
    // This file has recorded three imports so far (the first test's, and these two); none handed over.
    expect(res.body.meta.totals).toMatchObject({ decisions: 3, imports: 3, handoffs: 0 });
  });

  it('refuses every importedFrom that does not fit, with a 422 naming the member', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['import without importedFrom', { source: 'import' }, '/importedFrom'],
      ['importedFrom without source import', { importedFrom: imported().importedFrom }, '/importedFrom'],
      [
        'importedFrom with another source',
        { source: 'banner', importedFrom: imported().importedFrom },
        '/importedFrom',
      ],
      ['a CMP the channel does not import from', imported({ cmp: 'cookiebot' }), '/importedFrom/cmp'],
      ['a CMP nobody knows', imported({ cmp: 'quantcast' }), '/importedFrom/cmp'],
      ['an hour ahead', imported({ recordedAt: ago(-3600_000) }), '/importedFrom/recordedAt'],
      ['as old as consentMaxAgeDays', imported({ recordedAt: ago(180 * DAY) }), '/importedFrom/recordedAt'],
      ['not a date', imported({ recordedAt: 'yesterday' }), '/importedFrom/recordedAt'],
      [
        'a day the calendar lacks',
        imported({ recordedAt: '2026-02-30T00:00:00Z' }),
        '/importedFrom/recordedAt',
      ],
      ['year zero', imported({ recordedAt: '0000-01-01T00:00:00Z' }), '/importedFrom/recordedAt'],
      ['a number', imported({ recordedAt: 1767225600 }), '/importedFrom/recordedAt'],
      ['a value too long', imported({ value: 'x'.repeat(4097) }), '/importedFrom/value'],
      ['an empty value', imported({ value: '' }), '/importedFrom/value'],
      ['a control character', imported({ value: 'groups=C0002:1\n' }), '/importedFrom/value'],
      ['a NUL', imported({ value: 'a\u0000b' }), '/importedFrom/value'],
      ['a lone surrogate', imported({ value: 'a\ud800b' }), '/importedFrom/value'],
      ['non-ASCII', imported({ value: 'groupé' }), '/importedFrom/value'],
      ['an object value', imported({ value: { groups: 'C0002:1' } }), '/importedFrom/value'],
      ['an extra member', imported({ extra: 'x' }), '/importedFrom'],
      ['a source the service keeps for itself', { source: 'handoff' }, '/source'],
      [
        'a notice that imports nothing',
        { ...imported(), configVersion: versionWithout },
        '/importedFrom/cmp',
      ],
    ];
    for (const [what, overrides, path] of cases) {
      const res = await postPreferences(t, site.siteKey, preferencesBody(site, overrides));
      const problem = expectProblemShape(res, 422, 'validation_failed');
      const paths = (problem.errors ?? []).map((e: { path: string }) => e.path);
      expect(
        paths.some((p: string) => p.startsWith(path)),
        `${what}: ${JSON.stringify(problem.errors)}`,
      ).toBe(true);
    }
    const res = await t.http.get(`/v1/analytics/consent?channelId=${site.channelId}`, {
      key: tenant.testKey,
    });
    expect(res.body.meta.totals.decisions).toBe(3);
  });
});
