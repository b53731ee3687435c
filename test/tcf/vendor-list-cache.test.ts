import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { buildVendorList, type VendorListServer } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * The public vendor-list slice under `?version=` chosen by whoever asks: a process reads each
 * version's body from the database once (concurrent requests share that read) and keeps it within a
 * byte budget, and serves only the versions the channel's own config versions were made with, so
 * that rotating versions costs no database read and no parse per request. Reads are counted by the
 * process's `consent_service_tcf_vendor_list_loads_total`.
 */

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;
/** A channel whose config versions were made with every version 100…106 (it adopted each). */
let old: { id: string; siteKey: string };
/** A channel made once 106 was the newest: its configs used 106 only. */
let fresh: { id: string; siteKey: string };
const VERSIONS = [100, 101, 102, 103, 104, 105, 106];

async function tcfChannel(name: string) {
  const res = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name, tcf: { cmpId: 300, vendorIds: [2, 8, 32], publisherCountryCode: 'FR' } },
  });
  expect(res.status, res.text).toBe(201);
  const origin = await t.http.post(`/v1/channels/${res.body.data.id}/origins`, {
    key: tenant.testKey,
    body: { origin: SITE_ORIGIN },
  });
  expect(origin.status, origin.text).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  ({ t, gvl } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
  old = await tcfChannel('Old');
  for (const version of VERSIONS.slice(1)) {
    gvl.publish(buildVendorList({ version }));
    await refreshVendorList(t);
  }
  fresh = await tcfChannel('Fresh');
});
afterAll(() => t.close());

async function loads(app: TestApp): Promise<number> {
  const res = await app.http.get('/metrics');
  const line = res.text.split('\n').find((l) => l.startsWith('consent_service_tcf_vendor_list_loads_total '));
  if (!line) throw new Error('consent_service_tcf_vendor_list_loads_total is not exported');
  return Number(line.split(' ').pop());
}

const slice = (app: TestApp, siteKey: string, version: number) =>
  app.http.get(`/v1/public/sites/${siteKey}/tcf/vendor-list.json?version=${version}`, {
    headers: { origin: SITE_ORIGIN },
  });

describe('a process that starts cold (its caches empty)', () => {
  let cold: TestApp;
  beforeAll(async () => {
    // The same database, new services: nothing read yet, as after a restart or on another replica.
    cold = await startTestApp({ store: t.store, env: { ...SITES_TEST_ENV, TCF_GVL_URL: gvl.url } });
  });
  afterAll(() => cold.close());

  it('reads a version once for 20 concurrent requests', async () => {
    const before = await loads(cold);
    const answers = await Promise.all(Array.from({ length: 20 }, () => slice(cold, old.siteKey, 100)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await loads(cold)).toBe(before + 1);
  });

  it('serves a rotation of every version the channel used from memory after one read of each', async () => {
    const before = await loads(cold);
    for (let round = 0; round < 4; round++) {
      for (const version of VERSIONS) {
        const res = await slice(cold, old.siteKey, version);
        expect(res.status, res.text).toBe(200);
        expect(res.body.vendorListVersion).toBe(version);
      }
    }
    // 100 was read by the test before.
    expect(await loads(cold)).toBe(before + VERSIONS.length - 1);
  });
});

describe('versions a channel never used', () => {
  it('are 404 with the CORS headers a page needs to read the answer, and cost no read of a list', async () => {
    const before = await loads(t);
    for (const version of [100, 105, 99, 4095]) {
      const res = await slice(t, fresh.siteKey, version);
      expectProblemShape(res, 404, 'not_found');
      expect(res.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
      expect(res.headers.get('vary')).toMatch(/Origin/);
    }
    expect(await loads(t)).toBe(before);
    // The version its config uses, and those the other channel's configs used, are served.
    expect((await slice(t, fresh.siteKey, 106)).status).toBe(200);
    expect((await slice(t, old.siteKey, 100)).status).toBe(200);
  });

  it('a foreign origin gets the 404 without CORS headers', async () => {
    const res = await t.http.get(`/v1/public/sites/${fresh.siteKey}/tcf/vendor-list.json?version=100`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
