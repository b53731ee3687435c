import { GppModel } from '@iabgpp/cmpapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gppStub } from '../../src/modules/gpp/gpp-stub.ts';
import { supportedUsApis, US_STATE_SECTIONS } from '../../src/shared/us-gpp-sections.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The service's side: the channel's `gppSections` and `integrations`, the
 * stub the snippet carries under "state", and decisions carrying a string of each US state section,
 * decoded by the IAB's own decoder within the same bounds as usnat's (a malformed one is a 422).
 */
const US_OPT_OUT = [
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['*'], regime: 'opt-in' },
];
const STATES = Object.entries(US_STATE_SECTIONS);

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey, { gppCmpId: 300 });
  const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: { regionRules: US_OPT_OUT, gppSections: 'state' },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...site, configVersion: patched.body.data.configVersion };
});
afterAll(() => t.close());

const patch = (id: string, body: Record<string, unknown>) =>
  t.http.patch(`/v1/channels/${id}`, { key: tenant.testKey, body });

function decide(region: string, body: Record<string, unknown>): Promise<TestResponse> {
  return t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=${region}`, {
    body: { subjectId: `sub-${crypto.randomUUID()}`, configVersion: site.configVersion, ...body },
    headers: { origin: SITE_ORIGIN },
  });
}

/** A string of one state section, opted out, with GPC where the section has its subsection: made by the library. */
function stateString(name: string): string {
  const model = new GppModel();
  model.setFieldValue(name, 'SaleOptOut', 1);
  model.setFieldValue(name, 'SaleOptOutNotice', 1);
  if ('Gpc' in (model.getSection(name) as object)) {
    model.setFieldValue(name, 'GpcSegmentIncluded', true);
    model.setFieldValue(name, 'Gpc', true);
  }
  return model.encode();
}

describe('gppSections and integrations on a channel', () => {
  it('default usnat and both integrations off; set on PATCH (integrations merged), in the config, never material', async () => {
    const ready = await createReadySite(t, tenant.testKey, { gppCmpId: 300 });
    expect(ready.channel).toMatchObject({
      gppSections: 'usnat',
      integrations: { microsoftUet: false, microsoftClarity: false },
    });
    const state = await patch(ready.channelId, {
      gppSections: 'state',
      integrations: { microsoftUet: true },
    });
    expect(state.status, state.text).toBe(200);
    expect(state.body.data).toMatchObject({
      gppSections: 'state',
      integrations: { microsoftUet: true, microsoftClarity: false },
    });
    const both = await patch(ready.channelId, { integrations: { microsoftClarity: true } });
    expect(both.body.data.integrations).toEqual({ microsoftUet: true, microsoftClarity: true });
    for (const version of [state.body.data.configVersion, both.body.data.configVersion]) {
      const row = await t.http.get(`/v1/channels/${ready.channelId}/config-versions/${version}`, {
        key: tenant.testKey,
      });
      expect(row.body.data.reconsent).toBe(false);
    }
    const config = await t.http.get(`/v1/public/sites/${ready.siteKey}/config`);
    expect(config.body.data).toMatchObject({
      gppSections: 'state',
      integrations: { microsoftUet: true, microsoftClarity: true },
    });
    for (const body of [
      { gppSections: 'usca' },
      { gppSections: null },
      { integrations: { microsoftUet: 'yes' } },
      { integrations: { googleAds: true } },
      { integrations: null },
    ]) {
      expectProblemShape(await patch(ready.channelId, body), 422, 'validation_failed');
    }
    const created = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'State', gppSections: 'state', integrations: { microsoftClarity: true } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      gppSections: 'state',
      integrations: { microsoftUet: false, microsoftClarity: true },
    });
  });

  it('the snippet’s stub lists usnat alone under "usnat", and every state section under "state"', async () => {
    const stubOf = async (key: string) =>
      (await t.http.get(`/v1/public/sites/${key}/snippet`)).body.data.html.split('\n')[0] as string;
    const listed = (mode: 'usnat' | 'state') =>
      `[${supportedUsApis(mode)
        .map((a) => `'${a}'`)
        .join(',')}]`;
    expect(await stubOf(site.siteKey)).toContain(`supportedAPIs:${listed('state')}`);
    expect(listed('state')).toContain("'27:usri'");
    await patch(site.channelId, { gppSections: 'usnat' });
    // "usnat" gives today's stub, byte for byte.
    expect(await stubOf(site.siteKey)).toBe(`<script>${gppStub(300)}</script>`);
    expect(gppStub(300)).toContain("supportedAPIs:['7:usnat']");
    const back = await patch(site.channelId, { gppSections: 'state' });
    site = { ...site, configVersion: back.body.data.configVersion };
  });
});

describe('a decision’s string of each US state section', () => {
  it.each(STATES)(
    '%s (%o): a string the library makes is recorded and kept; a malformed one is a 422',
    async (code, section) => {
      const value = stateString(section.name);
      expect(new GppModel(value).getHeader().SectionIds).toEqual([section.id]);
      const res = await decide(code, { decisions: { marketing: 'denied' }, gppString: value });
      expect(res.status, res.text).toBe(201);
      const shown = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey });
      expect(shown.body.data).toMatchObject({ gppString: value, region: code, regime: 'opt-out' });
      const header = value.split('~')[0];
      for (const bad of [`${header}~B`, `${header}~!!`, `${header}~`, `${value}~${value.split('~')[1]}`]) {
        const refused = await decide(code, { decisions: {}, gppString: bad });
        expectProblemShape(refused, 422, 'validation_failed');
        expect(refused.body.errors[0].path).toBe('/gppString');
      }
    },
  );
});

describe('gpcHonoredShown on a decision', () => {
  it('recorded with GPC only; absent otherwise, so other events keep their canonical form', async () => {
    const event = async (body: Record<string, unknown>) => {
      const res = await decide('US-CA', { decisions: { marketing: 'denied' }, ...body });
      expect(res.status, res.text).toBe(201);
      return (await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey })).body.data;
    };
    expect(await event({ source: 'gpc', gpc: true, gpcHonoredShown: true })).toMatchObject({
      source: 'gpc',
      gpc: true,
      gpcHonoredShown: true,
    });
    expect(await event({ gpc: true, gpcHonoredShown: false })).not.toHaveProperty('gpcHonoredShown');
    expect(await event({ gpcHonoredShown: true })).not.toHaveProperty('gpcHonoredShown');
    expect(await event({})).not.toHaveProperty('gpcHonoredShown');
    expectProblemShape(
      await decide('US-CA', { decisions: {}, gpcHonoredShown: 'yes' }),
      422,
      'validation_failed',
    );
  });
});
