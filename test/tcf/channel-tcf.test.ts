import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TCF_RELEASE } from '../../src/modules/tcf/settings/tcf-settings.service.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, TEST_VENDORS, type VendorListServer } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * A channel's `tcf` settings (docs/guides/tcf.md): written on create and PATCH against the newest
 * vendor list, kept in the config snapshot with what each vendor declares, and given to visitors of
 * opt-in regions in the config.
 */

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;

beforeAll(async () => {
  ({ t, gvl } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
});
afterAll(() => t.close());

const settings = { cmpId: 300, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' };
const post = (body: unknown) => t.http.post('/v1/channels', { key: tenant.testKey, body });
const patch = (id: string, body: unknown) =>
  t.http.patch(`/v1/channels/${id}`, { key: tenant.testKey, body });
const version = (id: string, v: number) =>
  t.http.get(`/v1/channels/${id}/config-versions/${v}`, { key: tenant.testKey });

async function tcfChannel(extra: Record<string, unknown> = {}) {
  const res = await post({ name: 'News', tcf: settings, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('channel tcf', () => {
  it('is null by default; set on create with its defaults, shown by GET, kept in the snapshot with each vendor’s declarations', async () => {
    const plain = await post({ name: 'Plain' });
    expect(plain.body.data.tcf).toBeNull();

    const channel = await tcfChannel();
    // cmpVersion null: the channel follows the service's TCF release.
    const expected = {
      ...settings,
      cmpVersion: null,
      purposeOneTreatment: false,
      publisherRestrictions: [],
      googleAdditionalConsent: null,
      // An unknown region is one the GDPR may cover (unknown-region.test.ts).
      unknownRegion: 'gdpr',
    };
    expect(channel.tcf).toEqual(expected);
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(read.body.data.tcf).toEqual(expected);

    const snapshot = (await version(channel.id, 1)).body.data.config.tcf;
    const vendor2 = TEST_VENDORS.find((v) => v.id === 2)!;
    expect(snapshot).toMatchObject({ ...expected, vendorListVersion: 100, tcfPolicyVersion: 5 });
    expect(snapshot.vendors.map((v: { id: number }) => v.id)).toEqual([1, 2, 8]);
    expect(snapshot.vendors[1]).toEqual({
      id: 2,
      purposes: vendor2.purposes,
      legIntPurposes: vendor2.legIntPurposes,
      flexiblePurposes: vendor2.flexiblePurposes,
      specialPurposes: vendor2.specialPurposes,
      features: vendor2.features,
      specialFeatures: vendor2.specialFeatures,
    });
  });

  it('PATCH replaces the settings (audited), null clears them; bad shapes are refused', async () => {
    const channel = await tcfChannel();
    const changed = await patch(channel.id, {
      tcf: { ...settings, cmpVersion: 3, purposeOneTreatment: true, publisherCountryCode: 'DE' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.tcf).toMatchObject({ cmpVersion: 3, purposeOneTreatment: true });
    const audit = await t.http.get(`/v1/audit-logs?targetId=${channel.id}`, { key: tenant.testKey });
    expect(audit.body.data.map((e: { action: string }) => e.action)).toContain('channel.updated');

    // Pinned, it is served as is; null again follows the service's TCF release.
    const config = async () =>
      (await t.http.get(`/v1/public/sites/${channel.siteKey}/config`)).body.data.tcf.cmpVersion;
    expect(await config()).toBe(3);
    const following = await patch(channel.id, { tcf: { ...settings, cmpVersion: null } });
    expect(following.status, following.text).toBe(200);
    expect(following.body.data.tcf.cmpVersion).toBeNull();
    expect(
      (await version(channel.id, following.body.data.configVersion)).body.data.config.tcf.cmpVersion,
    ).toBeNull();
    await expect.poll(config, { timeout: 10_000 }).toBe(TCF_RELEASE);

    const cleared = await patch(channel.id, { tcf: null });
    expect(cleared.body.data.tcf).toBeNull();
    expect((await version(channel.id, cleared.body.data.configVersion)).body.data.config.tcf).toBeNull();

    for (const tcf of [
      { ...settings, cmpId: 1 },
      { ...settings, cmpId: 4096 },
      { ...settings, cmpVersion: 0 },
      { ...settings, cmpVersion: 4096 },
      { ...settings, cmpVersion: '2' },
      { ...settings, vendorIds: [] },
      { ...settings, vendorIds: [1, 1] },
      { ...settings, vendorIds: Array.from({ length: 1001 }, (_, i) => i + 1) },
      { ...settings, publisherCountryCode: 'fr' },
      { ...settings, extra: true },
    ]) {
      const res = await patch(channel.id, { tcf });
      expect(res.status, JSON.stringify(tcf).slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });

  it('publisherCountryCode must be an assigned ISO 3166-1 alpha-2 code: ZZ, XK and unassigned ones are a 422 on POST and PATCH', async () => {
    const channel = await tcfChannel();
    for (const code of ['ZZ', 'XK', 'AA', 'UK', 'EU']) {
      const tcf = { ...settings, publisherCountryCode: code };
      const created = expectProblemShape(await post({ name: code, tcf }), 422, 'validation_failed');
      expect(created.errors).toEqual([
        {
          path: '/tcf/publisherCountryCode',
          message: `"${code}" is not an assigned ISO 3166-1 alpha-2 country code`,
        },
      ]);
      expectProblemShape(await patch(channel.id, { tcf }), 422, 'validation_failed');
    }
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(read.body.data.tcf.publisherCountryCode).toBe('FR');
    // Greece is GR in ISO 3166-1 (EL is the EU's own abbreviation); GB, not UK.
    for (const code of ['GR', 'GB', 'DE', 'AX']) {
      const res = await patch(channel.id, { tcf: { ...settings, publisherCountryCode: code } });
      expect(res.status, res.text).toBe(200);
    }
  });

  it('a vendor not in the newest list, or deleted from it, is a 422 naming each', async () => {
    const channel = await tcfChannel();
    const unknown = expectProblemShape(
      await patch(channel.id, { tcf: { ...settings, vendorIds: [1, 999, 2, 4000] } }),
      422,
      'validation_failed',
    );
    expect(unknown.errors).toEqual([
      { path: '/tcf/vendorIds/1', message: 'vendor 999 is not in the Global Vendor List (version 100)' },
      { path: '/tcf/vendorIds/3', message: 'vendor 4000 is not in the Global Vendor List (version 100)' },
    ]);
    expectProblemShape(
      await post({ name: 'X', tcf: { ...settings, vendorIds: [7] } }),
      422,
      'validation_failed',
    );

    // Version 101: vendor 32 leaves the list (IAB keeps it, with its deletedDate).
    gvl.publish(
      buildVendorList({
        version: 101,
        vendors: TEST_VENDORS.map((v) => (v.id === 32 ? { ...v, deletedDate: '2026-01-01T00:00:00Z' } : v)),
      }),
    );
    await refreshVendorList(t);
    const deleted = expectProblemShape(
      await patch(channel.id, { tcf: { ...settings, vendorIds: [32, 21, 999] } }),
      422,
      'validation_failed',
    );
    expect(deleted.errors).toEqual([
      {
        path: '/tcf/vendorIds/0',
        message: 'vendor 32 was deleted from the Global Vendor List (version 101)',
      },
      { path: '/tcf/vendorIds/2', message: 'vendor 999 is not in the Global Vendor List (version 101)' },
    ]);
    // Nothing was written by the refused changes.
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(read.body.data.tcf.vendorIds).toEqual([1, 2, 8]);
  });

  it('adding a vendor or turning TCF on is material; removing a vendor is not', async () => {
    const channel = await post({ name: 'Later' }).then((r) => r.body.data);
    const on = await patch(channel.id, { tcf: settings });
    expect((await version(channel.id, on.body.data.configVersion)).body.data.reconsent).toBe(true);
    const added = await patch(channel.id, { tcf: { ...settings, vendorIds: [1, 2, 8, 21] } });
    expect(added.body.data.configVersion).toBe(on.body.data.configVersion + 1);
    expect((await version(channel.id, added.body.data.configVersion)).body.data.reconsent).toBe(true);
    const removed = await patch(channel.id, { tcf: { ...settings, vendorIds: [1, 21] } });
    expect(removed.body.data.configVersion).toBe(added.body.data.configVersion + 1);
    expect((await version(channel.id, removed.body.data.configVersion)).body.data.reconsent).toBe(false);
    const same = await patch(channel.id, { tcf: { ...settings, vendorIds: [1, 21] } });
    expect(same.body.data.configVersion).toBe(removed.body.data.configVersion);
  });
});

describe('a new vendor list version', () => {
  it('re-snapshots every TCF channel with it: material where a chosen vendor declares more, not elsewhere', async () => {
    const withTwo = await tcfChannel();
    const withoutTwo = await tcfChannel({ tcf: { ...settings, vendorIds: [1, 8] } });
    const plain = await post({ name: 'Plain' }).then((r) => r.body.data);
    const before = (await t.app.services.tcf.latestVendorList(t.store.db))!.vendorListVersion;
    // Vendor 2 now also asks consent for purpose 3; nothing else changes.
    gvl.publish(
      buildVendorList({
        version: before + 1,
        vendors: TEST_VENDORS.map((v) => (v.id === 2 ? { ...v, purposes: [1, 2, 3] } : v)),
      }),
    );
    await refreshVendorList(t);
    const current = async (channel: { id: string }) =>
      (await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey })).body.data;

    const two = await current(withTwo);
    expect(two.configVersion).toBe(withTwo.configVersion + 1);
    const twoVersion = (await version(withTwo.id, two.configVersion)).body.data;
    expect(twoVersion.reconsent).toBe(true);
    expect(twoVersion.config.tcf.vendorListVersion).toBe(before + 1);
    expect(twoVersion.config.tcf.vendors[1]).toMatchObject({ id: 2, purposes: [1, 2, 3] });

    const other = await current(withoutTwo);
    expect(other.configVersion).toBe(withoutTwo.configVersion + 1);
    expect((await version(withoutTwo.id, other.configVersion)).body.data.reconsent).toBe(false);
    expect((await current(plain)).configVersion).toBe(plain.configVersion);
    // The config visitors get names the new list at once.
    const config = await t.http.get(`/v1/public/sites/${withTwo.siteKey}/config`);
    expect(config.body.data.tcf.vendorListVersion).toBe(before + 1);
    expect(config.body.data.consentRequiredSince).toBe(two.configVersion);
  });
});

describe('the visitor config of a TCF channel', () => {
  it('carries tcf in opt-in regions only and tcfCmp in every region, the same on the fast path and the routed one', async () => {
    const channel = await tcfChannel({
      regionRules: [
        { regions: ['US'], regime: 'opt-out' },
        { regions: ['*'], regime: 'opt-in' },
      ],
    });
    await t.http.post(`/v1/channels/${channel.id}/origins`, {
      key: tenant.testKey,
      body: { origin: SITE_ORIGIN },
    });
    const url = `/v1/public/sites/${channel.siteKey}/config`;
    const fast = await t.http.get(url);
    expect(fast.status).toBe(200);
    const list = (await t.app.services.tcf.latestVendorList(t.store.db))!;
    expect(fast.body.data.tcf).toEqual({
      cmpId: 300,
      cmpVersion: TCF_RELEASE,
      vendorListVersion: list.vendorListVersion,
      tcfPolicyVersion: 5,
      gdprApplies: true,
      publisherCountryCode: 'FR',
      purposeOneTreatment: false,
      publisherRestrictions: [],
      googleAdditionalConsent: null,
      reopenControl: 'floating',
      vendorListUrl: expect.stringMatching(/^https?:\/\/[^/]+\/v1\/public\/sites\//),
    });
    expect(fast.body.data.tcf.vendorListUrl).toMatch(
      `/v1/public/sites/${channel.siteKey}/tcf/vendor-list.json?version=${list.vendorListVersion}&configVersion=${channel.configVersion}`,
    );
    // The address serves the channel's vendors of that list version (the SDK adds &lang=).
    const listUrl = new URL(fast.body.data.tcf.vendorListUrl);
    const slice = await t.http.get(`${listUrl.pathname}${listUrl.search}&lang=fr`);
    expect(slice.status, slice.text.slice(0, 200)).toBe(200);
    expect(Object.keys(slice.body.vendors).map(Number)).toEqual([1, 2, 8]);
    // The same answer through Fastify (a query string is never taken by the fast path).
    const routed = await t.http.get(`${url}?region=FR`);
    expect(routed.body.data.regime).toBe('opt-in');
    expect(routed.body.data.tcf).toEqual(fast.body.data.tcf);
    // tcfCmp: what __tcfapi names without tcf.js, GDPR applying in opt-in regions only.
    const cmp = { cmpId: 300, cmpVersion: TCF_RELEASE, tcfPolicyVersion: 5 };
    expect(fast.body.data.tcfCmp).toEqual({ ...cmp, gdprApplies: true });
    expect(routed.body.data.tcfCmp).toEqual(fast.body.data.tcfCmp);
    const optOut = await t.http.get(`${url}?region=US`);
    expect(optOut.body.data.regime).toBe('opt-out');
    expect(optOut.body.data).not.toHaveProperty('tcf');
    expect(optOut.body.data.tcfCmp).toEqual({ ...cmp, gdprApplies: false });

    const plain = await post({ name: 'Plain' }).then((r) => r.body.data);
    const plainConfig = await t.http.get(`/v1/public/sites/${plain.siteKey}/config`);
    expect(plainConfig.body.data).not.toHaveProperty('tcf');
    expect(plainConfig.body.data).not.toHaveProperty('tcfCmp');
  });
});
