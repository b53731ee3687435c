import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, postPreferences, preferencesBody, type ReadySite } from '../helpers/sites.ts';

/**
 * Behind a load balancer every request comes from the balancer's address: without TRUST_PROXY the
 * public limit would be one budget for all visitors of a site and evidence would hold the
 * balancer's network. TRUST_PROXY names the proxies whose X-Forwarded-For is believed.
 */
let trusting: TestApp;
let tenant: Tenant;
let site: ReadySite;

beforeAll(async () => {
  trusting = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1', PUBLIC_RATE_LIMIT_PER_MINUTE: '2' } });
  tenant = await trusting.tenant();
  site = await createReadySite(trusting, tenant.testKey);
});
afterAll(() => trusting.close());

async function ipPrefixOf(t: TestApp, key: string, id: string): Promise<string | null> {
  const res = await t.http.get(`/v1/evidence/${id}`, { key });
  expect(res.status).toBe(200);
  return res.body.data.ipPrefix;
}

describe('TRUST_PROXY', () => {
  it('from a trusted proxy, X-Forwarded-For is the client: in evidence and in the public limit', async () => {
    const from = (address: string) =>
      postPreferences(trusting, site.siteKey, preferencesBody(site), {
        headers: { 'x-forwarded-for': address },
      });
    const first = await from('203.0.113.7');
    expect(first.status, first.text).toBe(201);
    expect(await ipPrefixOf(trusting, tenant.testKey, first.body.data.id)).toBe('203.0.113.0/24');
    expect((await from('203.0.113.7')).status).toBe(201);
    expect((await from('203.0.113.7')).status).toBe(429);
    // Another visitor behind the same proxy has a budget of its own.
    expect((await from('198.51.100.20')).status).toBe(201);
  });

  it('is off by default: a forwarded address is not believed', async () => {
    const plain = await startTestApp({ store: trusting.store });
    try {
      const res = await postPreferences(plain, site.siteKey, preferencesBody(site), {
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(res.status, res.text).toBe(201);
      expect(await ipPrefixOf(plain, tenant.testKey, res.body.data.id)).toBe('127.0.0.0/24');
    } finally {
      await plain.close();
    }
  });

  it('accepts true, false, a hop count or addresses/CIDRs, and names every bad entry', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toEqual(['10.0.0.0/8', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33,proxy.local' })).toThrow(
      /TRUST_PROXY .*"10\.0\.0\.0\/33", "proxy\.local"/,
    );
  });
});
