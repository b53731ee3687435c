import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNTRY_CODES } from '../../src/modules/regions/iso-3166-codes.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The config answers (one per site and region, serialized once) are kept within CONFIG_CACHE_MB for
 * all sites together, however large each answer and however many regions ask, and an answer unused
 * for CONFIG_CACHE_MAX_IDLE_SECONDS is released. Read from /metrics; a dropped answer comes back
 * the same, byte for byte. Each answer here is about 30 KB (purposes with long descriptions), as a
 * TCF channel's with many vendors is larger still; regions are declared (a test channel's `region`).
 * The memory itself is read too, on the embedded store: the process's ArrayBuffer bytes after a
 * full garbage collection.
 */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const bufferBytes = () => {
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
};
const CACHE_MB = 1;
const BOUND = CACHE_MB * 1024 * 1024;
const IDLE_SECONDS = 600;
let t: TestApp;
let tenant: Tenant;
let sites: ReadySite[];

beforeAll(async () => {
  t = await startTestApp({
    env: {
      ...SITES_TEST_ENV,
      CONFIG_CACHE_MB: String(CACHE_MB),
      CONFIG_CACHE_MAX_IDLE_SECONDS: String(IDLE_SECONDS),
    },
  });
  tenant = await t.tenant();
  sites = [];
  for (const name of ['First', 'Second', 'Third', 'Fourth']) {
    const site = await createReadySite(t, tenant.testKey, { name });
    for (let i = 0; i < 12; i++) {
      const res = await t.http.post(`/v1/channels/${site.channelId}/purposes`, {
        key: tenant.testKey,
        body: { key: `long${i}`, name: `Long ${i}`, description: `${name} ${i} `.repeat(400).slice(0, 2000) },
      });
      expect(res.status, res.text).toBe(201);
    }
    const current = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
    sites.push({ ...site, configVersion: current.body.data.configVersion });
  }
});
afterAll(() => t?.close());

const config = (site: ReadySite, region: string) =>
  t.http.get(`/v1/public/sites/${site.siteKey}/config?region=${region}`);

async function metric(name: string): Promise<number> {
  const res = await t.http.get('/metrics');
  const line = res.text.split('\n').find((l) => l.startsWith(`${name} `));
  expect(line, `${name} in /metrics`).toBeDefined();
  return Number((line as string).split(' ')[1]);
}

describe('config answers in memory', () => {
  it('stay within CONFIG_CACHE_MB for all sites together, and a dropped one comes back the same', async () => {
    const codes = COUNTRY_CODES.split(' ');
    const first = await config(sites[0], codes[0]);
    expect(first.status, first.text).toBe(200);
    const answerBytes = Buffer.byteLength(first.text);
    expect(answerBytes).toBeGreaterThan(25_000);
    // A first pass over forty regions fills the cache to its bound and lets everything else that
    // grows with requests (the embedded store's WebAssembly memory, which counts as ArrayBuffer
    // bytes, the drivers' and sockets' buffers) reach its working size; the pass measured after it
    // then adds answers the cache does not hold yet, which it must evict to stay within the bound.
    for (const site of sites)
      for (const region of codes.slice(1, 41)) expect((await config(site, region)).status).toBe(200);
    // Four sites from 120 regions: over ten times the bound, were they all kept, so that what
    // else grows in a loaded run (up to about 3 MB seen on PostgreSQL) cannot hide an unbounded cache.
    const measured = codes.slice(41, 161);
    expect(sites.length * measured.length * answerBytes).toBeGreaterThan(10 * BOUND);
    const before = bufferBytes();
    for (const site of sites)
      for (const region of measured) expect((await config(site, region)).status).toBe(200);
    // What stays in memory once the requests are over: the bound, and some slack for the rest.
    // Read on the embedded store only: on PostgreSQL the driver's buffers beside it grew by 3 to
    // 9 MB over the same pass in loaded CI runs, as much as an unbounded cache adds (13 MB), so
    // there the number says nothing. The cache is the same code on both stores; /metrics below is
    // checked on both.
    if (t.store.kind === 'embedded') expect(bufferBytes() - before).toBeLessThan(5 * BOUND);
    const held = await metric('consent_service_config_cache_bytes');
    expect(held).toBeGreaterThan(BOUND / 2);
    expect(held).toBeLessThanOrEqual(BOUND);
    expect(await metric('consent_service_config_cache_evictions_total')).toBeGreaterThan(0);
    // The first answer went long ago (least recently used): built again, it is the same.
    const again = await config(sites[0], codes[0]);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('releases the answers unused for CONFIG_CACHE_MAX_IDLE_SECONDS', async () => {
    for (const region of COUNTRY_CODES.split(' ').slice(40, 60)) await config(sites[1], region);
    expect(await metric('consent_service_config_cache_bytes')).toBeGreaterThan(BOUND / 2);
    t.clock.advance(IDLE_SECONDS * 1000);
    const one = await config(sites[1], 'DE');
    expect(one.status).toBe(200);
    // Only the answer just asked for is left.
    const held = await metric('consent_service_config_cache_bytes');
    expect(held).toBeGreaterThanOrEqual(Buffer.byteLength(one.text));
    expect(held).toBeLessThan(2 * Buffer.byteLength(one.text));
  });
});
