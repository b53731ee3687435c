import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite } from '../helpers/sites.ts';

/**
 * A DELETE with an Idempotency-Key is answered, once, and replayed (found while building the
 * console's identity secrets: such a DELETE got no answer at all, and on the embedded store the
 * database stayed stuck for every later request).
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('DELETE with an Idempotency-Key', () => {
  it('deletes, answers 204, replays the 204, and leaves the service answering', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const created = await t.http.post(`/v1/channels/${site.channelId}/technologies`, {
      key: tenant.testKey,
      body: { name: 'Chat widget', purposeKeys: ['analytics'] },
    });
    expect(created.status, created.text).toBe(201);
    const url = `/v1/channels/${site.channelId}/technologies/${created.body.data.id}`;
    const headers = { 'idempotency-key': `delete-${Date.now()}` };
    const first = await t.http.delete(url, { key: tenant.testKey, headers });
    expect(first.status, first.text).toBe(204);
    const again = await t.http.delete(url, { key: tenant.testKey, headers });
    expect(again.status).toBe(204);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await t.http.get(url, { key: tenant.testKey })).status).toBe(404);
    // The store is free: another write goes through.
    const next = await t.http.post(`/v1/channels/${site.channelId}/technologies`, {
      key: tenant.testKey,
      body: { name: 'Video player', purposeKeys: ['analytics'] },
    });
    expect(next.status, next.text).toBe(201);
  }, 20_000);
});
