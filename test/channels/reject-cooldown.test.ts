import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * rejectCooldownDays (docs/guides/signed-in-visitors.md): days without a banner after a refusal of
 * every optional purpose. 0–395, default 0; part of the config snapshot (a new configVersion, never
 * a material one) and of the public config, on the fast path and the routed one.
 */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const key = () => tenant.testKey;

describe('rejectCooldownDays', () => {
  it('defaults to 0, is set on create and PATCH, and refuses anything but an integer 0–395', async () => {
    const plain = await t.http.post('/v1/channels', { key: key(), body: { name: 'Plain' } });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.data.rejectCooldownDays).toBe(0);
    const set = await t.http.post('/v1/channels', {
      key: key(),
      body: { name: 'Set', rejectCooldownDays: 395 },
    });
    expect(set.status, set.text).toBe(201);
    expect(set.body.data.rejectCooldownDays).toBe(395);

    for (const days of [-1, 396, 1.5, '183', null]) {
      const created = await t.http.post('/v1/channels', {
        key: key(),
        body: { name: 'Bad', rejectCooldownDays: days },
      });
      const problem = expectProblemShape(created, 422, 'validation_failed');
      expect(problem.errors.map((e: { path: string }) => e.path)).toContain('/rejectCooldownDays');
      const patched = await t.http.patch(`/v1/channels/${plain.body.data.id}`, {
        key: key(),
        body: { rejectCooldownDays: days },
      });
      expectProblemShape(patched, 422, 'validation_failed');
    }
    const reread = await t.http.get(`/v1/channels/${plain.body.data.id}`, { key: key() });
    expect(reread.body.data.rejectCooldownDays).toBe(0);
  });

  it('a change is a new config version, not a material one, carried by both paths of the public config', async () => {
    const site = await createReadySite(t, key());
    const config = (query = '') =>
      t.http.get(`/v1/public/sites/${site.siteKey}/config${query}`, { headers: { origin: SITE_ORIGIN } });
    const before = await config();
    expect(before.body.data.rejectCooldownDays).toBe(0);

    const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: key(),
      body: { rejectCooldownDays: 183 },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      rejectCooldownDays: 183,
      configVersion: site.configVersion + 1,
    });

    const version = await t.http.get(
      `/v1/channels/${site.channelId}/config-versions/${site.configVersion + 1}`,
      {
        key: key(),
      },
    );
    expect(version.status, version.text).toBe(200);
    expect(version.body.data).toMatchObject({ reconsent: false, config: { rejectCooldownDays: 183 } });

    // The first read after the change loads the site through Fastify; the next is the fast path's.
    await config();
    const fast = await config();
    // An empty query string leaves the read to Fastify's route.
    const routed = await config('?');
    for (const answer of [fast, routed]) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toMatchObject({
        rejectCooldownDays: 183,
        configVersion: site.configVersion + 1,
        consentRequiredSince: before.body.data.consentRequiredSince,
      });
    }
    expect(fast.headers.get('etag')).toBe(routed.headers.get('etag'));
    expect(fast.headers.get('etag')).not.toBe(before.headers.get('etag'));

    // The same value again changes nothing: no new version.
    const same = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: key(),
      body: { rejectCooldownDays: 183 },
    });
    expect(same.body.data.configVersion).toBe(site.configVersion + 1);
  });
});
