import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VENDOR_LIST_POLL_MS } from '../../src/modules/tcf/tcf.service.ts';
import { FRESHNESS, retryDelaySeconds } from '../../src/modules/tcf/vendor-list/vendor-list-mirror.ts';
import type { TestApp } from '../helpers/app.ts';
import { buildVendorList, type VendorListServer } from '../helpers/gvl.ts';
import { startTcfTestApp, useTcf } from '../helpers/tcf.ts';

/**
 * The worker's Global Vendor List mirror, driven through a loopback host the tests control: what it
 * stores, when it fetches again, and that no failure of the host loses the last good version.
 */

const listRequests = (gvl: VendorListServer) => gvl.requests.filter((r) => r === '/vendor-list.json').length;

async function failureCount(t: TestApp, file = 'vendor_list'): Promise<number> {
  const res = await t.http.get('/metrics');
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(`consent_service_tcf_vendor_list_fetch_failures_total{file="${file}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function versionGauge(t: TestApp): Promise<number | null> {
  const res = await t.http.get('/metrics');
  const line = res.text.split('\n').find((l) => l.startsWith('consent_service_tcf_vendor_list_version '));
  return line ? Number(line.split(' ').pop()) : null;
}

describe('the vendor list mirror over http', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  beforeAll(async () => {
    ({ t, gvl } = await startTcfTestApp({ maxAgeSeconds: 600 }));
    // The mirror refreshes the list only while a channel uses TCF.
    await useTcf(t);
  });
  afterAll(() => t.close());

  const tcf = () => t.app.services.tcf;
  const advanceSeconds = (s: number) => t.clock.advance(s * 1000);

  it('stores the list on the first worker run of a fresh store, and says when it fetches next', async () => {
    expect(listRequests(gvl)).toBe(1);
    const stored = await tcf().vendorList(t.store.db, 100);
    expect(stored?.tcfPolicyVersion).toBe(5);
    expect(stored?.body).toEqual(buildVendorList());
    const state = await tcf().mirrorState(t.store.db);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
    expect(state!.nextFetchAt!.getTime() - state!.lastSuccessAt!.getTime()).toBe(600_000);
    expect(await versionGauge(t)).toBe(100);
  });

  it('does not fetch again before max-age has passed, and fetches at the first poll after', async () => {
    advanceSeconds(590);
    await t.worker.runDue();
    expect(listRequests(gvl)).toBe(1);
    // The job wakes every VENDOR_LIST_POLL_MS; the first wake past max-age fetches.
    advanceSeconds(VENDOR_LIST_POLL_MS / 1000);
    await t.worker.runDue();
    expect(listRequests(gvl)).toBe(2);
  });

  it('stores a new version and keeps the old one', async () => {
    gvl.publish(buildVendorList({ version: 101 }));
    advanceSeconds(601);
    await t.worker.runDue();
    expect((await tcf().latestVendorList(t.store.db))?.vendorListVersion).toBe(101);
    expect((await tcf().vendorList(t.store.db, 100))?.vendorListVersion).toBe(100);
    expect(await versionGauge(t)).toBe(101);
  });

  const failures: Array<[string, (gvl: VendorListServer) => void, RegExp]> = [
    ['a 503', (g) => g.fail(503), /answered 503/],
    ['invalid JSON', (g) => g.fail('garbage'), /not valid JSON/],
    [
      'a list of another format',
      (g) => g.publish({ ...buildVendorList({ version: 102 }), gvlSpecificationVersion: 2 as 3 }),
      /gvlSpecificationVersion/,
    ],
    [
      'a version that is not a whole number',
      (g) => g.publish({ ...buildVendorList(), vendorListVersion: 102.5 }),
      /vendorListVersion/,
    ],
    [
      'a vendor without a name',
      (g) => {
        const list = buildVendorList({ version: 102 });
        g.publish({ ...list, vendors: { ...list.vendors, '2': { ...list.vendors['2'], name: 7 as never } } });
      },
      /vendors\[2\] has no name/,
    ],
    [
      'a vendor whose purposes are not ids',
      (g) => {
        const list = buildVendorList({ version: 102 });
        g.publish({
          ...list,
          vendors: { ...list.vendors, '8': { ...list.vendors['8'], purposes: ['1'] as never } },
        });
      },
      /vendors\[8\]\.purposes is not a list of ids/,
    ],
    [
      'vendors that are not a map keyed by id',
      (g) => g.publish({ ...buildVendorList({ version: 102 }), vendors: [] as never }),
      /vendors/,
    ],
  ];

  it.each(failures)(
    'keeps serving the last good version after %s, counts it and backs off',
    async (_, breakIt, error) => {
      const before = await failureCount(t);
      const previous = await tcf().mirrorState(t.store.db);
      breakIt(gvl);
      advanceSeconds(3601);
      const requests = listRequests(gvl);
      await t.worker.runDue();
      expect(listRequests(gvl)).toBe(requests + 1);
      expect((await tcf().latestVendorList(t.store.db))?.vendorListVersion).toBe(101);
      const state = await tcf().mirrorState(t.store.db);
      expect(state!.lastError).toMatch(error);
      expect(state!.consecutiveFailures).toBe(previous!.consecutiveFailures + 1);
      expect(state!.nextFetchAt!.getTime() - state!.lastAttemptAt!.getTime()).toBe(
        retryDelaySeconds(state!.consecutiveFailures) * 1000,
      );
      expect(state!.lastSuccessAt).toEqual(previous!.lastSuccessAt);
      expect(await failureCount(t)).toBe(before + 1);
      expect(await versionGauge(t)).toBe(101);
      // The API keeps answering with the last good version.
      gvl.heal();
      gvl.publish(buildVendorList({ version: 101 }));
    },
  );

  it('recovers on the next due run once the host is healthy again', async () => {
    advanceSeconds(3601);
    await t.worker.runDue();
    const state = await tcf().mirrorState(t.store.db);
    expect(state).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });

  it('keeps max-age within its floor and ceiling', async () => {
    gvl.maxAgeSeconds = 0;
    advanceSeconds(3601);
    await t.worker.runDue();
    let state = await tcf().mirrorState(t.store.db);
    expect(state!.nextFetchAt!.getTime() - state!.lastSuccessAt!.getTime()).toBe(
      FRESHNESS.floorSeconds * 1000,
    );
    gvl.maxAgeSeconds = 365 * 86_400;
    advanceSeconds(FRESHNESS.floorSeconds + 1);
    await t.worker.runDue();
    state = await tcf().mirrorState(t.store.db);
    expect(state!.nextFetchAt!.getTime() - state!.lastSuccessAt!.getTime()).toBe(
      FRESHNESS.ceilingSeconds * 1000,
    );
    gvl.maxAgeSeconds = 600;
  });
});

describe('TCF_GVL_URL', () => {
  it.each(['ftp://example.com/gvl/', 'not a url', 'https://example.com/v3/?x=1'])(
    'refuses %s at start',
    async (value) => {
      const { loadConfig } = await import('../../src/config.ts');
      expect(() => loadConfig({ TCF_GVL_URL: value })).toThrow(/TCF_GVL_URL/);
    },
  );
  it('defaults to IAB’s host and keeps a base URL ending with a slash', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(loadConfig({}).tcfGvlUrl).toBe('https://vendor-list.consensu.org/v3/');
    expect(loadConfig({ TCF_GVL_URL: 'https://gvl.example/v3' }).tcfGvlUrl).toBe('https://gvl.example/v3/');
    expect(loadConfig({ TCF_GVL_URL: 'file:///srv/gvl' }).tcfGvlUrl).toBe('file:///srv/gvl/');
  });
});
