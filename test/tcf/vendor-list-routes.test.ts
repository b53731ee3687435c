import { GVL } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, TEST_VENDORS, type VendorListServer } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * The two reads of the mirrored Global Vendor List: the whole newest list for the console
 * (`GET /v1/tcf/vendor-list`), and a channel's slice of one version for browsers (its config's
 * `vendorListUrl`), which @iabtechlabtcf/core's GVL must accept as a vendor list.
 */

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;

/**
 * The test list, plus a vendor IAB has deleted (it stays in the list, marked) and one whose removal
 * is announced for a date after the list's (still a vendor until then).
 */
const LIST = buildVendorList({
  vendors: [
    ...TEST_VENDORS,
    { id: 40, name: 'Gone Media', deletedDate: '2025-06-01T00:00:00Z' },
    { id: 41, name: 'Leaving Soon Ltd', deletedDate: '2099-01-01T00:00:00Z' },
  ],
});

beforeAll(async () => {
  // Not loaded: the first tests see the service before the worker's first fetch.
  ({ t, gvl } = await startTcfTestApp({ env: SITES_TEST_ENV, list: LIST, load: false }));
  tenant = await t.tenant();
});
afterAll(() => t.close());

const vendorList = (key: string, query = '') => t.http.get(`/v1/tcf/vendor-list${query}`, { key });
const ids = (items: Array<{ id: number }>) => items.map((i) => i.id);

describe('GET /v1/tcf/vendor-list', () => {
  it('is 409 invalid_state before the worker has fetched a list, telling the operator what to check', async () => {
    const res = await vendorList(tenant.testKey);
    expectProblemShape(res, 409, 'invalid_state');
    expect(res.body.detail).toMatch(/TCF_GVL_URL/);
    expect(res.body.detail).toMatch(/worker/);
  });

  it('needs a key with channels:read', async () => {
    expectProblemShape(await t.http.get('/v1/tcf/vendor-list'), 401, 'authentication_required');
    const other = await tenant.key(['evidence:read']);
    expectProblemShape(await vendorList(other.secret), 403, 'insufficient_scope');
  });

  it('is the newest list once fetched: every declaration and the vendors not deleted, sorted by id', async () => {
    await refreshVendorList(t);
    const reader = await tenant.key(['channels:read'], { role: 'analyst' });
    const res = await vendorList(reader.secret);
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      vendorListVersion: 100,
      tcfPolicyVersion: 5,
      lastUpdated: '2026-04-11T00:00:00Z',
    });
    expect(ids(data.purposes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(ids(data.specialPurposes)).toEqual([1, 2, 3]);
    expect(ids(data.features)).toEqual([1, 2, 3]);
    expect(ids(data.specialFeatures)).toEqual([1, 2]);
    expect(ids(data.stacks)).toEqual([1, 2, 3]);
    expect(ids(data.dataCategories)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(ids(data.vendors)).toEqual([1, 2, 8, 21, 32, 41]);
    // Items keep the list's own fields, those the schema does not name included.
    expect(data.vendors[1]).toEqual(LIST.vendors['2']);
    expect(data.purposes[0]).toEqual(LIST.purposes['1']);
    expect(data.stacks[0]).toEqual(LIST.stacks['1']);
  });

  it('filters vendors by name with ?q= (case-insensitive substring); the declarations stay whole', async () => {
    const trade = await vendorList(tenant.testKey, '?q=trade');
    expect(ids(trade.body.data.vendors)).toEqual([21]);
    expect(trade.body.data.purposes).toHaveLength(11);
    expect(ids((await vendorList(tenant.testKey, '?q=INC')).body.data.vendors)).toEqual([1, 32]);
    expect((await vendorList(tenant.testKey, '?q=nobody')).body.data.vendors).toEqual([]);
    // A deleted vendor is never found.
    expect((await vendorList(tenant.testKey, '?q=gone')).body.data.vendors).toEqual([]);
  });

  it('bounds ?q=', async () => {
    expectProblemShape(await vendorList(tenant.testKey, `?q=${'a'.repeat(101)}`), 422, 'validation_failed');
    expectProblemShape(await vendorList(tenant.testKey, '?q='), 422, 'validation_failed');
  });

  it('shows the newest version after the mirror stores another', async () => {
    gvl.publish(buildVendorList({ version: 101 }));
    await refreshVendorList(t);
    expect((await vendorList(tenant.testKey)).body.data.vendorListVersion).toBe(101);
  });
});

describe('GET /v1/public/sites/:siteKey/tcf/vendor-list.json', () => {
  let channel: { id: string; siteKey: string; configVersion: number };
  const slice = (siteKey: string, query = '', headers: Record<string, string> = {}) =>
    t.http.get(`/v1/public/sites/${siteKey}/tcf/vendor-list.json${query}`, { headers });

  beforeAll(async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: {
        name: 'News',
        defaultLanguage: 'fr',
        tcf: { cmpId: 300, vendorIds: [2, 32], publisherCountryCode: 'FR' },
      },
    });
    expect(res.status, res.text).toBe(201);
    channel = res.body.data;
    const origin = await t.http.post(`/v1/channels/${channel.id}/origins`, {
      key: tenant.testKey,
      body: { origin: SITE_ORIGIN },
    });
    expect(origin.status, origin.text).toBe(201);
    // The channel shows French: the mirror now fetches purposes-fr.json for the newest version.
    await refreshVendorList(t);
  });

  const current = async () =>
    (await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey })).body.data
      .configVersion as number;

  it('is the channel’s vendors and only what they use, in the vendor-list.json format GVL reads', async () => {
    const res = await slice(channel.siteKey, '?version=101');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = res.body;
    expect(body).toMatchObject({ gvlSpecificationVersion: 3, vendorListVersion: 101, tcfPolicyVersion: 5 });
    expect(Object.keys(body.vendors)).toEqual(['2', '32']);
    expect(Object.keys(body.purposes)).toEqual(['1', '2', '3', '4', '7', '8', '9', '10']);
    expect(Object.keys(body.specialPurposes)).toEqual(['1', '2']);
    expect(Object.keys(body.features)).toEqual(['1', '2']);
    expect(Object.keys(body.specialFeatures)).toEqual(['1']);
    // Stack 1 groups special features 1 and 2; vendor 2 and 32 use only 1.
    expect(Object.keys(body.stacks)).toEqual(['2', '3']);
    expect(Object.keys(body.dataCategories)).toEqual(['1', '2', '3', '8']);

    const read = new GVL(body);
    expect(read.vendorListVersion).toBe(101);
    expect(Object.keys(read.vendors)).toEqual(['2', '32']);
    expect(Object.keys(read.getVendorsWithSpecialFeature(1))).toEqual(['2']);
    expect(read.purposes[7].name).toBe('Measure advertising performance');
  });

  it('is immutable with version and configVersion given, briefly cacheable without', async () => {
    const fixed = await slice(channel.siteKey, `?version=101&configVersion=${await current()}`);
    expect(fixed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(fixed.headers.get('content-language')).toBe('en');
    for (const query of ['', '?version=101', `?configVersion=${await current()}`]) {
      expect((await slice(channel.siteKey, query)).headers.get('cache-control')).toBe('public, max-age=300');
    }
  });

  it('serves the vendors of an older config version; a version the service keeps but none of the channel’s configs used is 404', async () => {
    // The channel was made once 101 was the newest: 100 is no version of its visitors.
    expectProblemShape(await slice(channel.siteKey, '?version=100&configVersion=1'), 404, 'not_found');
    const old = await slice(channel.siteKey, '?version=101&configVersion=1');
    expect(old.status, old.text).toBe(200);
    expect(old.body.vendorListVersion).toBe(101);
    expect(Object.keys(old.body.vendors)).toEqual(['2', '32']);
    const patched = await t.http.patch(`/v1/channels/${channel.id}`, {
      key: tenant.testKey,
      body: { tcf: { cmpId: 300, vendorIds: [8], publisherCountryCode: 'FR' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(Object.keys((await slice(channel.siteKey, '?version=101')).body.vendors)).toEqual(['8']);
    expect(Object.keys((await slice(channel.siteKey, '?version=101&configVersion=1')).body.vendors)).toEqual([
      '2',
      '32',
    ]);
  });

  it('translates the declarations from the stored language file, and falls back to English saying so', async () => {
    const version = await current();
    // The worker asks the newly chosen vendor 8 for its storage disclosure: until
    // it has, the slice may still change and is not cached for ever.
    await refreshVendorList(t);
    const fr = await slice(channel.siteKey, `?version=101&configVersion=${version}&lang=fr-FR`);
    expect(fr.status, fr.text).toBe(200);
    expect(fr.headers.get('content-language')).toBe('fr');
    expect(fr.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(fr.body.purposes['1'].name).toBe('[fr] Store and/or access information on a device');
    expect(fr.body.stacks['3'].name).toMatch(/^\[fr\] /);
    // Vendors are not translated (IAB's language files have none); their names stay.
    expect(fr.body.vendors['8'].name).toBe('Emerse Sverige AB');
    expect(new GVL(fr.body).purposes[1].name).toMatch(/^\[fr\] /);

    const de = await slice(channel.siteKey, `?version=101&configVersion=${version}&lang=de`);
    expect(de.headers.get('content-language')).toBe('en');
    expect(de.body.purposes['1'].name).toBe('Store and/or access information on a device');
    // English for now; German once the mirror has it: not cached for ever.
    expect(de.headers.get('cache-control')).toBe('public, max-age=300');
    expectProblemShape(await slice(channel.siteKey, '?lang=not_a_language'), 422, 'validation_failed');
  });

  it('answers the site’s registered origins cross-origin, and no other', async () => {
    const allowed = await slice(channel.siteKey, '?version=101', { origin: SITE_ORIGIN });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
    expect(allowed.headers.get('vary')).toMatch(/Origin/);
    const other = await slice(channel.siteKey, '?version=101', { origin: 'https://evil.example' });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is 404 for a version, config version, site or channel without TCF it does not know', async () => {
    expectProblemShape(await slice(channel.siteKey, '?version=99'), 404, 'not_found');
    // The site's page reads the 404 too (getVendorList of an unknown version answers false, as IAB's CMP API says).
    const unknown = await slice(channel.siteKey, '?version=99', { origin: SITE_ORIGIN });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
    expect(unknown.headers.get('vary')).toMatch(/Origin/);
    expectProblemShape(await slice(channel.siteKey, '?configVersion=999'), 404, 'not_found');
    expectProblemShape(await slice('site_test_unknownunknownunkn'), 404, 'not_found');
    const plain = await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'Plain' } });
    expectProblemShape(await slice(plain.body.data.siteKey), 404, 'not_found');
  });
});
