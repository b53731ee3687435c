import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

/**
 * A newcomer points a webhook or a scan at their laptop and is refused: the refusal names the
 * setting that allows it for test channels, and tells live channels there is none.
 * The service here runs with neither setting, as a default install does.
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('refusals of private addresses say what to do', () => {
  it('webhook destinations: the setting for test keys, "only public" for live ones', async () => {
    const test = await t.http.post('/v1/webhook-destinations', {
      key: tenant.testKey,
      body: { url: 'http://127.0.0.1:4000/hook' },
    });
    expectProblemShape(test, 422, 'invalid_destination');
    expect(test.body.detail).toContain('non-public');
    expect(test.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');

    const live = await t.http.post('/v1/webhook-destinations', {
      key: tenant.liveKey,
      body: { url: 'https://10.0.0.1/hook' },
    });
    expectProblemShape(live, 422, 'invalid_destination');
    expect(live.body.detail).toContain('live channels only reach public addresses');
    expect(live.body.detail).not.toContain('ALLOW_PRIVATE');
    // A refusal that is not about the address says nothing of the setting.
    const scheme = await t.http.post('/v1/webhook-destinations', {
      key: tenant.testKey,
      body: { url: 'ftp://127.0.0.1/' },
    });
    expectProblemShape(scheme, 422, 'invalid_destination');
    expect(scheme.body.detail).not.toContain('ALLOW_PRIVATE');
  });

  it('tracker scans: the setting for test channels, "only public" for live ones', async () => {
    for (const [key, expected] of [
      [tenant.testKey, 'SCAN_ALLOW_PRIVATE_TARGETS=true'],
      [tenant.liveKey, 'live channels only reach public addresses'],
    ] as const) {
      const channel = await t.http.post('/v1/channels', { key, body: { name: 'Local shop' } });
      expect(channel.status, channel.text).toBe(201);
      const id = channel.body.data.id;
      const origin = await t.http.post(`/v1/channels/${id}/origins`, {
        key,
        body: { origin: 'http://127.0.0.1:4000' },
      });
      expect(origin.status, origin.text).toBe(201);
      const scan = await t.http.post(`/v1/channels/${id}/scans`, { key, body: {} });
      expectProblemShape(scan, 422, 'invalid_origin');
      expect(scan.body.detail).toContain('non-public');
      expect(scan.body.detail).toContain(expected);
    }
  });
});
