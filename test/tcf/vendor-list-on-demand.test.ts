import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { VendorListServer } from '../helpers/gvl.ts';
import { startTcfTestApp } from '../helpers/tcf.ts';

/**
 * An install without TCF channels never reaches for TCF_GVL_URL: the worker's runs fetch nothing and
 * log nothing, until someone asks for the list (the vendor list route, or TCF settings saved).
 */
describe('the vendor list mirror without TCF channels', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  beforeAll(async () => {
    ({ t, gvl } = await startTcfTestApp({ load: false }));
  });
  afterAll(() => t.close());

  it('fetches nothing on a fresh store, however often the worker runs', async () => {
    await t.worker.runDue();
    t.clock.advance(3600_000);
    await t.worker.runDue();
    expect(gvl.requests).toEqual([]);
    expect(await t.app.services.tcf.mirrorState(t.store.db)).toBeNull();
  });

  it('fetches once the list is asked for: the route is 409 until the worker has it, then 200', async () => {
    const tenant = await t.tenant();
    const first = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expect(first.status).toBe(409);
    expect(first.body.code).toBe('invalid_state');
    expect(first.body.detail).toContain('now that it was asked for');
    await t.worker.runDue();
    expect(gvl.requests.filter((r) => r === '/vendor-list.json')).toHaveLength(1);
    const then = await t.http.get('/v1/tcf/vendor-list', { key: tenant.testKey });
    expect(then.status, then.text).toBe(200);
    expect(then.body.data.vendorListVersion).toBe(100);
  });

  it('does not refresh the list it holds while still no channel uses TCF', async () => {
    t.clock.advance(7 * 86_400_000);
    await t.worker.runDue();
    expect(gvl.requests.filter((r) => r === '/vendor-list.json')).toHaveLength(1);
  });
});
