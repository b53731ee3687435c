import { GppModel } from '@iabgpp/cmpapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { hostileTcfEuGpp } from '../helpers/gpp.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The service's side of the US opt-out (docs/regions.md): the channel's `gppCmpId`, the GPP
 * string of a decision (checked with the IAB's own decoder, stored and shown), and Global Privacy
 * Control sent as the `Sec-GPC: 1` header.
 */

/** A US National (section 7) string: notices given, sale/sharing/targeted advertising not opted out. */
const USNAT = 'DBABLA~BVQqAAAAAgA.QA';
const US_OPT_OUT = [
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['*'], regime: 'opt-in' },
];

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  // A GPP channel: the SDK provides the GPP API to its US opt-out visitors.
  site = await createReadySite(t, tenant.testKey, { gppCmpId: 300 });
  const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: { regionRules: US_OPT_OUT },
  });
  expect(patched.status, patched.text).toBe(200);
  site = { ...site, configVersion: patched.body.data.configVersion };
});
afterAll(() => t.close());

/** A decision as the SDK posts it, from a declared region of the test channel (`on` its site). */
function decide(
  region: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  on: ReadySite = site,
): Promise<TestResponse> {
  return t.http.post(`/v1/public/sites/${on.siteKey}/preferences?region=${region}`, {
    body: { subjectId: `sub-${crypto.randomUUID()}`, configVersion: on.configVersion, ...body },
    headers: { origin: SITE_ORIGIN, ...headers },
  });
}

async function event(id: string) {
  const res = await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('gppCmpId', () => {
  it('is set on create and PATCH, null by default, in the config, and not a material change', async () => {
    const created = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'GPP', gppCmpId: 300 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.gppCmpId).toBe(300);
    const ready = await createReadySite(t, tenant.testKey);
    expect(ready.channel.gppCmpId).toBeNull();
    const patched = await t.http.patch(`/v1/channels/${ready.channelId}`, {
      key: tenant.testKey,
      body: { gppCmpId: 42 },
    });
    expect(patched.body.data.gppCmpId).toBe(42);
    const version = patched.body.data.configVersion;
    expect(version).toBe(ready.configVersion + 1);
    const row = await t.http.get(`/v1/channels/${ready.channelId}/config-versions/${version}`, {
      key: tenant.testKey,
    });
    expect(row.body.data.reconsent).toBe(false);
    const config = await t.http.get(`/v1/public/sites/${ready.siteKey}/config`);
    expect(config.body.data.gppCmpId).toBe(42);
    for (const gppCmpId of [0, 65536, 1.5, '300']) {
      expectProblemShape(
        await t.http.patch(`/v1/channels/${ready.channelId}`, { key: tenant.testKey, body: { gppCmpId } }),
        422,
        'validation_failed',
      );
    }
    const cleared = await t.http.patch(`/v1/channels/${ready.channelId}`, {
      key: tenant.testKey,
      body: { gppCmpId: null },
    });
    expect(cleared.body.data.gppCmpId).toBeNull();
  });
});

describe('gppString of a decision', () => {
  it('a string that decodes is stored on the event and shown by evidence reads', async () => {
    // What the string says, by the IAB's own decoder.
    const usnat = new GppModel(USNAT).getSection('usnat');
    expect(usnat).toMatchObject({ SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2 });
    const res = await decide('US-CA', {
      decisions: { analytics: 'granted', marketing: 'granted' },
      source: 'banner',
      gppString: USNAT,
    });
    expect(res.status, res.text).toBe(201);
    const shown = await event(res.body.data.id);
    expect(shown).toMatchObject({ gppString: USNAT, regime: 'opt-out', region: 'US-CA' });
    // An event without one has no such member (older events' canonical form never had it).
    const plain = await decide('US-CA', { decisions: {} });
    expect(Object.keys(await event(plain.body.data.id))).not.toContain('gppString');
  });

  it('a string that does not decode is a 422 at /gppString, and nothing is recorded', async () => {
    const before = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=100`, {
      key: tenant.testKey,
    });
    for (const gppString of ['garbage', 'DBAB', 'DBABLA~', 'DBABLA~ZZZZ', `${USNAT}~x`]) {
      const res = await decide('US-CA', { decisions: {}, gppString });
      expectProblemShape(res, 422, 'validation_failed');
      expect(res.body.errors[0].path).toBe('/gppString');
    }
    expectProblemShape(await decide('US-CA', { decisions: {}, gppString: '' }), 422, 'validation_failed');
    expectProblemShape(
      await decide('US-CA', { decisions: {}, gppString: 'D'.repeat(4097) }),
      422,
      'validation_failed',
    );
    const after = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=100`, {
      key: tenant.testKey,
    });
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('on a channel without a gppCmpId (no GPP) a string is a 422 at /gppString, never decoded', async () => {
    const plain = await createReadySite(t, tenant.testKey, { name: 'No GPP' });
    await t.http.patch(`/v1/channels/${plain.channelId}`, {
      key: tenant.testKey,
      body: { regionRules: US_OPT_OUT },
    });
    const current = await t.http.get(`/v1/channels/${plain.channelId}`, { key: tenant.testKey });
    const noGpp = { ...plain, configVersion: current.body.data.configVersion };
    const reason = `was sent, but configVersion ${noGpp.configVersion} of this channel has no gppCmpId: it does not use GPP`;
    // A string that decodes, and the 603-character one that stopped the decoder: the same answer,
    // which names the channel's settings, not the string.
    for (const gppString of [USNAT, hostileTcfEuGpp()]) {
      const res = await decide('US-CA', { decisions: {}, gppString }, {}, noGpp);
      expectProblemShape(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: '/gppString', message: reason }]);
    }
    const evidence = await t.http.get(`/v1/evidence?channelId=${noGpp.channelId}&limit=100`, {
      key: tenant.testKey,
    });
    expect(evidence.body.data).toEqual([]);
    // Without a string, its decisions are recorded as before.
    expect((await decide('US-CA', { decisions: {} }, {}, noGpp)).status).toBe(201);
  });
});

describe('Global Privacy Control', () => {
  it('Sec-GPC: 1 is the signal: gpcOptOut purposes are denied and the event says gpc', async () => {
    const res = await decide(
      'FR',
      { decisions: { analytics: 'granted', marketing: 'granted' } },
      { 'sec-gpc': '1' },
    );
    expect(res.status, res.text).toBe(201);
    const shown = await event(res.body.data.id);
    expect(shown).toMatchObject({
      gpc: true,
      regime: 'opt-in',
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
    });
    // Another value is not the signal.
    const off = await decide('FR', { decisions: { marketing: 'granted' } }, { 'sec-gpc': '0' });
    expect(await event(off.body.data.id)).toMatchObject({ gpc: false, decisions: { marketing: 'granted' } });
  });

  it('in an opt-out region the signal is recorded as an opt-out, and a later explicit choice wins', async () => {
    const signal = await decide(
      'US-CA',
      { decisions: { analytics: 'granted', marketing: 'granted' }, source: 'gpc', gpc: true },
      { 'sec-gpc': '1' },
    );
    expect(await event(signal.body.data.id)).toMatchObject({
      source: 'gpc',
      gpc: true,
      regime: 'opt-out',
      decisions: { marketing: 'denied', analytics: 'granted' },
    });
    // The visitor opts back in through "Your Privacy Choices": recorded as chosen, the signal noted.
    const choice = await decide(
      'US-CA',
      { decisions: { analytics: 'granted', marketing: 'granted' }, source: 'preference_center', gpc: true },
      { 'sec-gpc': '1' },
    );
    expect(await event(choice.body.data.id)).toMatchObject({
      source: 'preference_center',
      gpc: true,
      decisions: { marketing: 'granted' },
    });
    // In an opt-in region the same explicit grant next to the signal stays denied (today's meaning).
    const optIn = await decide(
      'DE',
      { decisions: { marketing: 'granted' }, source: 'preference_center', gpc: true },
      { 'sec-gpc': '1' },
    );
    expect(await event(optIn.body.data.id)).toMatchObject({ decisions: { marketing: 'denied' } });
  });
});
