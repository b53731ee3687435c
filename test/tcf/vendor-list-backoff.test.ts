import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VENDOR_LIST_POLL_MS } from '../../src/modules/tcf/tcf.service.ts';
import { retryDelaySeconds } from '../../src/modules/tcf/vendor-list/vendor-list-mirror.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import type { VendorListServer } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { startTcfTestApp } from '../helpers/tcf.ts';

/**
 * While no vendor list is held, every `GET /v1/tcf/vendor-list` and every TCF setting saved asks the
 * worker for one. Those asks once cleared the mirror's back-off, so that with IAB's host down each
 * instance fetched about once a second (each ask became a fetch at the next run). The back-off now
 * holds whatever asks: a vendor-list host on loopback that fails, and counts what it is asked.
 */

const settings = { cmpId: 300, vendorIds: [1, 2, 8], publisherCountryCode: 'FR' };

let t: TestApp;
let gvl: VendorListServer;
let tenant: Tenant;
let channelId: string;

const fetches = () => gvl.requests.filter((r) => r === '/vendor-list.json').length;

async function asks(outcome: 'due' | 'backing_off'): Promise<number> {
  const res = await t.http.get('/metrics');
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(`consent_service_tcf_vendor_list_asks_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const allAsks = async () => (await asks('due')) + (await asks('backing_off'));

/** Waits for the service to have counted `count` asks (the settings' ask runs after their 409). */
async function askedTimes(count: number) {
  await expect.poll(allAsks, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
}

/** Every way of asking: the vendor list route (409 while none is held) and TCF settings saved. */
async function askEveryWay(times: number) {
  const before = await allAsks();
  for (let i = 0; i < times; i++) {
    const route = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expectProblemShape(route, 409, 'invalid_state');
    const saved = await t.http.patch(`/v1/channels/${channelId}`, {
      key: tenant.testKey,
      body: { tcf: settings },
    });
    expectProblemShape(saved, 409, 'invalid_state');
    await t.worker.runDue();
  }
  await askedTimes(before + 2 * times);
  await t.worker.runDue();
}

beforeAll(async () => {
  ({ t, gvl } = await startTcfTestApp({ load: false }));
  tenant = await t.tenant();
  const channel = await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'News' } });
  expect(channel.status, channel.text).toBe(201);
  channelId = channel.body.data.id;
  gvl.fail(503);
});
afterAll(() => t.close());

describe('the vendor list mirror’s back-off, while IAB’s host is down and no list is held', () => {
  it('the first ask makes a fetch due; it fails, and the next is put off', async () => {
    expectProblemShape(
      await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey }),
      409,
      'invalid_state',
    );
    await askedTimes(1);
    expect(await asks('due')).toBe(1);
    await t.worker.runDue();
    expect(fetches()).toBe(1);
    const state = await t.app.services.tcf.mirrorState(t.store.db);
    expect(state).toMatchObject({ consecutiveFailures: 1, lastSuccessAt: null });
    expect(state!.nextFetchAt!.getTime() - t.clock.now().getTime()).toBe(retryDelaySeconds(1) * 1000);
  });

  it('asks during the back-off, by the route and by saved settings, fetch nothing', async () => {
    await askEveryWay(10);
    expect(fetches()).toBe(1);
    expect(await asks('due')).toBe(1);
    expect(await asks('backing_off')).toBe(20);
  });

  it('the back-off grows with each failure, asked or not', async () => {
    t.clock.advance(retryDelaySeconds(1) * 1000);
    await t.worker.runDue();
    expect(fetches()).toBe(2);
    // The second failure puts the next fetch off twice as long: asking meanwhile changes nothing.
    t.clock.advance(retryDelaySeconds(2) * 1000 - 1000);
    await askEveryWay(5);
    expect(fetches()).toBe(2);
    // The job's next wake (it woke just now) is past the back-off: it fetches then.
    t.clock.advance(VENDOR_LIST_POLL_MS);
    await t.worker.runDue();
    expect(fetches()).toBe(3);
  });

  it('once the host is back, the fetch at the end of the back-off stores the list, and the route answers', async () => {
    gvl.heal();
    await askEveryWay(2);
    expect(fetches()).toBe(3);
    t.clock.advance(retryDelaySeconds(3) * 1000);
    await t.worker.runDue();
    expect(fetches()).toBe(4);
    const route = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expect(route.status, route.text).toBe(200);
    expect((await t.app.services.tcf.mirrorState(t.store.db))?.consecutiveFailures).toBe(0);
  });
});
