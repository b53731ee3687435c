import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../src/modules/tcf/vendor-list/vendor-list-source.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import type { FailureMode, VendorListServer } from '../helpers/gvl.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';

/**
 * A host that never answers, stops halfway, sends far too much or sends a web page: each is a failed
 * fetch within the time limit, and the service keeps the version it has. Also: only the worker
 * fetches, and a language IAB has no file for costs the list nothing.
 */

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;
/**
 * The same service on the same database with a 2 s fetch limit, for the host that never answers and
 * the one that stalls: each waits out the whole limit, so a short one saves seconds. The other modes
 * keep 8 s, so a loaded machine streaming 16 MiB cannot turn the size cap into a timeout.
 */
let quick: TestApp;

beforeAll(async () => {
  ({ t, gvl } = await startTcfTestApp({ env: { TCF_GVL_FETCH_TIMEOUT_SECONDS: '8' }, load: false }));
  quick = await startTestApp({
    env: { TCF_GVL_URL: gvl.url, TCF_GVL_FETCH_TIMEOUT_SECONDS: '2' },
    store: t.store,
  });
  tenant = await t.tenant();
});
afterAll(async () => {
  await quick?.close();
  await t.close();
});

const tcf = () => t.app.services.tcf;

describe('the API role', () => {
  it('never fetches the list, whatever it is asked', async () => {
    await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Early', tcf: { cmpId: 300, vendorIds: [1], publisherCountryCode: 'FR' } },
    });
    expect(gvl.requests).toEqual([]);
    await t.worker.runDue();
    expect(gvl.requests).toEqual(['/vendor-list.json']);
  });
});

describe('a hostile or broken host', () => {
  const modes: Array<[FailureMode, RegExp, 'quick' | 'default']> = [
    ['hang', /no answer within 2000 ms/, 'quick'],
    ['stall', /no complete answer within 2000 ms/, 'quick'],
    ['huge', new RegExp(`larger than ${MAX_FILE_BYTES} bytes`), 'default'],
    ['html', /not JSON/, 'default'],
    [404, /answered 404/, 'default'],
  ];

  it.each(modes)(
    '%s: a failed fetch within the time limit; the stored version stays',
    async (mode, error, limit) => {
      gvl.fail(mode);
      const started = Date.now();
      const state = await refreshVendorList(limit === 'quick' ? quick : t);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(state?.lastError).toMatch(error);
      expect(state?.consecutiveFailures).toBeGreaterThan(0);
      expect((await tcf().latestVendorList(t.store.db))?.vendorListVersion).toBe(100);
      const api = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
      expect(api.body.data.vendorListVersion).toBe(100);
      gvl.heal();
    },
  );

  it('the worker goes on with its other jobs afterwards', async () => {
    const state = await refreshVendorList(t);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });
});

describe('language files', () => {
  it('fetches one per language of TCF channels, once per version; a missing one is counted, the list stays good', async () => {
    for (const defaultLanguage of ['de-AT', 'haw']) {
      const res = await t.http.post('/v1/channels', {
        key: tenant.testKey,
        body: {
          name: defaultLanguage,
          defaultLanguage,
          tcf: { cmpId: 300, vendorIds: [1], publisherCountryCode: 'AT' },
        },
      });
      expect(res.status, res.text).toBe(201);
    }
    // A channel without TCF asks for no translation.
    await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Plain', defaultLanguage: 'it' },
    });
    const state = await refreshVendorList(t);
    // The loopback host, like IAB, has no file for Hawaiian.
    expect(gvl.requests).toContain('/purposes-de.json');
    expect(gvl.requests).toContain('/purposes-haw.json');
    expect(gvl.requests).not.toContain('/purposes-it.json');
    expect(gvl.requests).not.toContain('/purposes-en.json');
    expect(state).toMatchObject({ consecutiveFailures: 0 });
    expect(state?.lastError).toMatch(/purposes-haw\.json: the host answered 404/);
    expect((await tcf().languageFile(t.store.db, 100, 'de-AT'))?.body.purposes).toBeDefined();
    const metrics = await t.http.get('/metrics');
    expect(metrics.text).toMatch(
      /consent_service_tcf_vendor_list_fetch_failures_total\{file="language"\} [1-9]/,
    );

    // Stored once: the next fetch asks only for what is still missing.
    const before = gvl.requests.filter((r) => r === '/purposes-de.json').length;
    await refreshVendorList(t);
    expect(gvl.requests.filter((r) => r === '/purposes-de.json').length).toBe(before);
  });

  it('fetches a language a channel starts using at the next poll, without waiting for the list to be due', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: {
        name: 'es',
        defaultLanguage: 'es',
        tcf: { cmpId: 300, vendorIds: [1], publisherCountryCode: 'ES' },
      },
    });
    expect(res.status, res.text).toBe(201);
    const count = (path: string) => gvl.requests.filter((r) => r === path).length;
    const [lists, haw] = [count('/vendor-list.json'), count('/purposes-haw.json')];
    t.clock.advance(61_000);
    await t.worker.runDue();
    expect(count('/purposes-es.json')).toBe(1);
    expect((await tcf().languageFile(t.store.db, 100, 'es'))?.language).toBe('es');
    // The list is not due yet, and a language IAB lacks waits for the list's next fetch.
    expect(count('/vendor-list.json')).toBe(lists);
    t.clock.advance(61_000);
    await t.worker.runDue();
    expect(count('/purposes-haw.json')).toBe(haw);
  });
});
