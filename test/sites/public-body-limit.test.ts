import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The public endpoints a visitor's browser posts to take bodies of at most 64 KiB (a real decision
 * is under 40 KB); authenticated calls keep 1 MiB. Past either: 413 payload_too_large, whose detail
 * says the limit.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t?.close());

const KIB = 1024;
/** A JSON object of exactly `bytes` bytes: the fields, then a padding string. */
function bodyOf(bytes: number, fields: Record<string, unknown> = {}): string {
  const shell = JSON.stringify({ ...fields, padding: '' });
  return JSON.stringify({ ...fields, padding: 'x'.repeat(bytes - Buffer.byteLength(shell)) });
}

const publicPost = (path: string, rawBody: string, type = 'application/json') =>
  t.http.post(`/v1/public/sites/${site.siteKey}/${path}`, {
    rawBody,
    headers: { origin: SITE_ORIGIN, 'content-type': type },
  });

describe('public bodies', () => {
  it.each([
    ['preferences', 'application/json'],
    ['identity', 'application/json'],
    ['impressions', 'application/json'],
    ['impressions', 'text/plain'],
    ['handoffs', 'application/json'],
    ['handoffs/redeem', 'application/json'],
  ])('POST …/%s (%s) takes 64 KiB, and is 413 past it', async (path, type) => {
    const within = await publicPost(path, bodyOf(64 * KIB, { configVersion: site.configVersion }), type);
    expect(within.status, within.text).not.toBe(413);
    expect(within.status, within.text).toBeLessThan(500);
    const over = await publicPost(path, bodyOf(64 * KIB + 1, { configVersion: site.configVersion }), type);
    const problem = expectProblemShape(over, 413, 'payload_too_large');
    expect(problem.detail).toContain('64 KiB');
    // Still answered to the page: the CORS headers of a registered origin are on the problem too.
    expect(over.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
  });
});

describe('authenticated bodies', () => {
  it('keep 1 MiB: a body of 200 KiB is read (and validated), one past 1 MiB is 413', async () => {
    const post = (rawBody: string) =>
      t.http.post('/v1/channels', {
        key: tenant.testKey,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
    const within = await post(bodyOf(200 * KIB, { name: 'Big' }));
    expectProblemShape(within, 422, 'validation_failed');
    const over = await post(bodyOf(1024 * KIB + 1, { name: 'Big' }));
    const problem = expectProblemShape(over, 413, 'payload_too_large');
    expect(problem.detail).toContain('1 MiB');
  });
});
