import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import {
  buildStorageDisclosure,
  buildVendorList,
  TEST_VENDORS,
  type VendorListServer,
  withDisclosuresAt,
} from '../helpers/gvl.ts';
import { SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * Each vendor's device storage disclosure (the JSON at its
 * `deviceStorageDisclosureUrl`) is fetched by the worker through the address guard, bounded,
 * checked, kept with the vendor list version, and served in the channel's slice, from which the
 * second layer shows it. A vendor's session cookie (`cookieMaxAgeSeconds` 0, or negative) is a
 * session cookie, never a negative duration.
 */

interface Channel {
  id: string;
  siteKey: string;
}

async function tcfChannel(t: TestApp, tenant: Tenant, vendorIds: number[]): Promise<Channel> {
  const res = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name: 'News', tcf: { cmpId: 300, vendorIds, publisherCountryCode: 'FR' } },
  });
  expect(res.status, res.text).toBe(201);
  const origin = await t.http.post(`/v1/channels/${res.body.data.id}/origins`, {
    key: tenant.testKey,
    body: { origin: SITE_ORIGIN },
  });
  expect(origin.status, origin.text).toBe(201);
  return res.body.data;
}

/** The slice of the channel's current config and vendor list version (the immutable address). */
async function slice(t: TestApp, tenant: Tenant, channel: Channel) {
  const current = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
  const configVersion = current.body.data.configVersion;
  const config = await t.http.get(`/v1/channels/${channel.id}/config-versions/${configVersion}`, {
    key: tenant.testKey,
  });
  const version = config.body.data.config.tcf.vendorListVersion;
  return t.http.get(
    `/v1/public/sites/${channel.siteKey}/tcf/vendor-list.json?version=${version}&configVersion=${configVersion}`,
    { headers: { origin: SITE_ORIGIN } },
  );
}

describe('vendors’ storage disclosures in the slice', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  let tenant: Tenant;

  beforeAll(async () => {
    ({ t, gvl } = await startTcfTestApp({ env: SITES_TEST_ENV }));
    // The vendors publish their disclosures on the loopback host; vendor 32 declares a negative
    // cookie age, the format's other spelling of a session cookie.
    const list = withDisclosuresAt(buildVendorList({ version: 101 }), gvl.url);
    (list.vendors['32'] as { cookieMaxAgeSeconds: number }).cookieMaxAgeSeconds = -1;
    (list.vendors['8'] as { cookieMaxAgeSeconds: number }).cookieMaxAgeSeconds = 0;
    gvl.publish(list);
    await refreshVendorList(t);
    tenant = await t.tenant();
  });
  afterAll(() => t.close());

  it('serves each vendor’s checked disclosure once the worker asked for it, and only then for ever', async () => {
    // Vendor 8's file is not a disclosure at all; its entries are an object, not a list.
    gvl.disclose(8, { disclosures: { uid: 1 } });
    const channel = await tcfChannel(t, tenant, [2, 8, 32]);
    // Before the worker asked the vendors: no disclosure yet, and the answer may still change.
    const before = await slice(t, tenant, channel);
    expect(before.status, before.text).toBe(200);
    expect(before.body.vendors['2'].deviceStorage).toBeUndefined();
    expect(before.headers.get('cache-control')).toBe('public, max-age=300');

    await refreshVendorList(t);
    const requested = gvl.requests.filter((p) => p.startsWith('/disclosures/'));
    // Only the channels' vendors are asked, each once.
    expect(requested.sort()).toEqual(['/disclosures/2.json', '/disclosures/32.json', '/disclosures/8.json']);
    const res = await slice(t, tenant, channel);
    expect(res.body.vendors['2'].deviceStorage).toEqual(buildStorageDisclosure(2));
    expect(res.body.vendors['32'].deviceStorage).toEqual(buildStorageDisclosure(32));
    // Vendor 8's file failed the check: left out (the layers say its details could not be had).
    expect(res.body.vendors['8'].deviceStorage).toBeUndefined();
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Session cookies: 0 stays 0, a negative age is read as 0 (never a negative duration).
    expect(res.body.vendors['8'].cookieMaxAgeSeconds).toBe(0);
    expect(res.body.vendors['32'].cookieMaxAgeSeconds).toBe(0);

    // The vendor repairs its file: the next due run fetches it again.
    gvl.disclose(8, buildStorageDisclosure(8));
    await refreshVendorList(t);
    const repaired = await slice(t, tenant, channel);
    expect(repaired.body.vendors['8'].deviceStorage).toEqual(buildStorageDisclosure(8));
    // Kept: a later run does not ask again for a file it holds for this version.
    const asked = gvl.requests.length;
    await refreshVendorList(t);
    expect(gvl.requests.slice(asked).filter((p) => p.startsWith('/disclosures/'))).toEqual([]);
  });

  it('bounds what a vendor sends: a file over 256 KiB is refused, entries beyond 200 are cut, unknown fields left out', async () => {
    const many = {
      disclosures: Array.from({ length: 250 }, (_, i) => ({
        identifier: `c${i}`,
        type: 'cookie',
        maxAgeSeconds: 60,
        purposes: [1],
        tracking: 'not a field of the format',
      })),
      domains: [],
    };
    gvl.disclose(21, many);
    gvl.disclose(1, {
      disclosures: [{ identifier: 'x'.repeat(200), type: 'cookie' }],
      pad: 'y'.repeat(300_000),
    });
    const channel = await tcfChannel(t, tenant, [1, 21]);
    await refreshVendorList(t);
    const res = await slice(t, tenant, channel);
    const kept = res.body.vendors['21'].deviceStorage.disclosures;
    expect(kept).toHaveLength(200);
    expect(kept[0]).toEqual({ identifier: 'c0', type: 'cookie', maxAgeSeconds: 60, purposes: [1] });
    expect(res.body.vendors['1'].deviceStorage).toBeUndefined();
    const failures = await t.http.get('/metrics');
    expect(failures.text).toMatch(
      /consent_service_tcf_vendor_list_fetch_failures_total\{file="storage_disclosure"\} [1-9]/,
    );
  });
});

describe('the address guard on vendors’ disclosure URLs', () => {
  let t: TestApp;
  let gvl: VendorListServer;

  beforeAll(async () => {
    // As in production: only https to public addresses. The loopback server is neither.
    ({ t, gvl } = await startTcfTestApp({
      env: { ...SITES_TEST_ENV, TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS: 'false' },
      list: buildVendorList({ version: 200 }),
    }));
    gvl.publish(withDisclosuresAt(buildVendorList({ version: 201 }), gvl.url));
    await refreshVendorList(t);
  });
  afterAll(() => t.close());

  it('never connects to a private address, and the slice carries no disclosure', async () => {
    const tenant = await t.tenant();
    const channel = await tcfChannel(
      t,
      tenant,
      TEST_VENDORS.map((v) => v.id),
    );
    await refreshVendorList(t);
    expect(gvl.requests.filter((p) => p.startsWith('/disclosures/'))).toEqual([]);
    const res = await slice(t, tenant, channel);
    expect(res.status).toBe(200);
    for (const vendor of Object.values(res.body.vendors) as Array<{ deviceStorage?: unknown }>)
      expect(vendor.deviceStorage).toBeUndefined();
  });
});
