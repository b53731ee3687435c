import { expect } from 'vitest';
import { ROLE_SCOPES } from '../../src/platform/auth/scopes.ts';
import type { TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent } from '../helpers/sites.ts';

/**
 * What the examples of docs/errors/ assume exists, made through the API as a reader would have made
 * it: the values of the shell variables docs/errors/README.md lists, by name.
 */
export async function errorExamplesWorld(t: TestApp): Promise<Record<string, string>> {
  const tenant = await t.tenant();
  const key = tenant.testKey;
  const ok = async (res: Promise<{ status: number; text: string; body: any }>, status = 201) => {
    const response = await res;
    expect(response.status, response.text).toBe(status);
    return response.body.data;
  };
  const site = await createReadySite(t, key, { name: 'Shop' });
  const live = await createReadySite(t, tenant.liveKey, { name: 'Live shop' });
  const channel = `/v1/channels/${site.channelId}`;
  const old = await ok(
    t.http.post(`${channel}/origins`, { key, body: { origin: 'https://old.example.com' } }),
  );
  const app = await ok(t.http.post('/v1/channels', { key, body: { name: 'Shop app', platform: 'app' } }));
  await ok(
    t.http.post(`/v1/channels/${app.id}/apps`, { key, body: { appId: 'com.example.shop', store: 'apple' } }),
  );
  const appChannel = await ok(t.http.get(`/v1/channels/${app.id}`, { key }), 200);
  // Requested and never run (no worker here): queued, so its file is not ready.
  const queued = await ok(t.http.post('/v1/exports', { key, body: {} }), 202);
  // Recorded and not yet sealed into a signed tree head (the worker seals).
  const event = await recordConsent(t, site);
  const read = await tenant.key(['channels:read']);
  const developer = await tenant.key([...ROLE_SCOPES.developer], { role: 'developer' });
  return {
    BASE: t.baseUrl,
    KEY: key,
    LIVE_KEY: tenant.liveKey,
    READ_KEY: read.secret,
    DEV_KEY: developer.secret,
    CH: site.channelId,
    SITE: site.siteKey,
    CONFIG_VERSION: String(site.configVersion),
    LIVE_CH: live.channelId,
    ORIGIN_ID: old.id,
    APP_CH: app.id,
    APP_SITE: appChannel.siteKey,
    EXPORT: queued.id,
    EVT: event.id,
  };
}
