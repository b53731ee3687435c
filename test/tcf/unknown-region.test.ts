import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { startTcfTestApp } from '../helpers/tcf.ts';

/**
 * Channel `tcf.unknownRegion` (docs/guides/tcf.md, "Visitors whose region is unknown"): a visitor
 * whose region the service cannot resolve gets, on a TCF channel, what a visitor the GDPR covers
 * gets (opt-in, the tcf config, `tcfCmp.gdprApplies: true`) whatever the region rules say of `*`,
 * unless the channel sets "not_applicable". The tests have no GeoIP database: a request without
 * `?region=` is of unknown region.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const TCF = { cmpId: 300, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' };
// Opt-in in the EEA only: the rules alone would give an unknown region opt-out.
const RULES = [
  { regions: ['EEA'], regime: 'opt-in' },
  { regions: ['*'], regime: 'opt-out' },
];

beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey, { name: 'News' });
});
afterAll(() => t.close());

async function patch(body: Record<string, unknown>) {
  const res = await t.http.patch(`/v1/channels/${site.channelId}`, { key: tenant.testKey, body });
  expect(res.status, res.text).toBe(200);
  site = { ...site, channel: res.body.data, configVersion: res.body.data.configVersion };
  return res.body.data;
}

const config = async (query = '') =>
  (await t.http.get(`/v1/public/sites/${site.siteKey}/config${query}`)).body.data;

/** The regime the consent state records for a decision made from an unknown region. */
async function recordedRegime(): Promise<string> {
  const subjectId = newSubjectId();
  const res = await postPreferences(t, site.siteKey, preferencesBody(site, { subjectId }));
  expect(res.status, res.text).toBe(201);
  const state = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${subjectId}`, {
    key: tenant.testKey,
  });
  expect(state.body.data.region).toBeNull();
  return state.body.data.regime;
}

describe('channel tcf.unknownRegion', () => {
  it('defaults to "gdpr": an unknown region gets opt-in, the tcf config and gdprApplies true', async () => {
    const channel = await patch({ regionRules: RULES, tcf: TCF });
    expect(channel.tcf.unknownRegion).toBe('gdpr');
    const unknown = await config();
    expect(unknown.region).toEqual({ code: null, source: 'unknown' });
    expect(unknown.regime).toBe('opt-in');
    expect(unknown.tcf).toMatchObject({ cmpId: 300, gdprApplies: true });
    expect(unknown.tcfCmp.gdprApplies).toBe(true);
    expect(await recordedRegime()).toBe('opt-in');
    // A known region outside the EEA keeps what the rules say.
    const us = await config('?region=US');
    expect(us.regime).toBe('opt-out');
    expect(us).not.toHaveProperty('tcf');
    expect(us.tcfCmp.gdprApplies).toBe(false);
  });

  it('"not_applicable": the region rules decide, GDPR does not apply', async () => {
    const channel = await patch({ tcf: { ...TCF, unknownRegion: 'not_applicable' } });
    expect(channel.tcf.unknownRegion).toBe('not_applicable');
    const unknown = await config();
    expect(unknown.regime).toBe('opt-out');
    expect(unknown).not.toHaveProperty('tcf');
    expect(unknown.tcfCmp.gdprApplies).toBe(false);
    expect(await recordedRegime()).toBe('opt-out');
    // The EEA is unaffected.
    expect((await config('?region=FR')).tcf.gdprApplies).toBe(true);
    // A PATCH of the other settings that leaves it out keeps it (a client that does not know the
    // field never resets it); "gdpr" sets it back.
    expect((await patch({ tcf: { ...TCF, vendorIds: [1, 2] } })).tcf.unknownRegion).toBe('not_applicable');
    expect((await config()).tcfCmp.gdprApplies).toBe(false);
    expect((await patch({ tcf: { ...TCF, unknownRegion: 'gdpr' } })).tcf.unknownRegion).toBe('gdpr');
    expect((await config()).tcfCmp.gdprApplies).toBe(true);
  });

  it('a channel without TCF keeps its rules for an unknown region', async () => {
    await patch({ tcf: null });
    const unknown = await config();
    expect(unknown.regime).toBe('opt-out');
    expect(unknown).not.toHaveProperty('tcfCmp');
  });

  it('refuses another value with 422 validation_failed naming the field', async () => {
    const res = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: { tcf: { ...TCF, unknownRegion: 'maybe' } },
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(JSON.stringify(problem.errors)).toContain('unknownRegion');
  });
});
