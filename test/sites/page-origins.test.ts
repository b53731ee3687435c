import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_CACHE_NOTIFIED_TTL_MS } from '../../src/modules/sites/site-cache.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_ORIGIN,
} from '../helpers/sites.ts';
import { createIdentitySecret, identify, mintToken } from '../identity/identity-helpers.ts';

/**
 * The origins a site's pages may run on, as the service tells the SDK (the config's `origins`, so
 * also the config sdk.js carries) and as it checks them on the public POSTs: the channel's active
 * origins and, on test channels only, any page on http://localhost or http://127.0.0.1 (a developer's own
 * machine, whatever its port).
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const LOCAL_PATTERNS = ['http://localhost:*', 'http://127.0.0.1:*'];
/** Pages a developer opens on their machine: dev servers' usual ports, and the default one. */
const LOCAL_PAGES = [
  'http://localhost:5173',
  'http://127.0.0.1:8080',
  'http://localhost',
  'http://127.0.0.1:3000',
];
/** Near misses a test channel still refuses unless registered. */
const NOT_LOCAL = [
  'https://localhost:5173',
  'http://localhost.example.net',
  'http://127.0.0.2:5173',
  'http://[::1]:5173',
  'http://localhost:5173/page',
];

const get = (siteKey: string, part: string, headers: Record<string, string> = {}) =>
  t.http.get(`/v1/public/sites/${siteKey}/${part}`, { headers });

/** The config sdk.js carries: the statement in front of the bundle, run against a stand-in `self`. */
function carried(script: string, siteKey: string): Record<string, any> {
  const self: { __consentServiceConfigs?: Record<string, any> } = {};
  new Function('self', script.slice(0, script.indexOf('\n')))(self);
  return self.__consentServiceConfigs?.[siteKey];
}

async function originsOf(site: ReadySite) {
  const config = await get(site.siteKey, 'config');
  const sdk = await get(site.siteKey, 'sdk.js');
  expect(config.status, config.text).toBe(200);
  expect(carried(sdk.text, site.siteKey).origins).toEqual(config.body.data.origins);
  return {
    origins: config.body.data.origins as string[],
    configTag: config.headers.get('etag') as string,
    sdkTag: sdk.headers.get('etag') as string,
  };
}

describe('the config names the origins its pages may run on', () => {
  it("a live channel: its active origins; a test channel: those, then localhost's", async () => {
    const live = await createReadySite(t, tenant.liveKey);
    const registered = [SITE_ORIGIN, WILDCARD_ORIGIN].sort();
    expect((await originsOf(live)).origins.sort()).toEqual(registered);
    const test = await createReadySite(t, tenant.testKey);
    const { origins } = await originsOf(test);
    expect(origins.slice(0, 2).sort()).toEqual(registered);
    expect(origins.slice(2)).toEqual(LOCAL_PATTERNS);
  });

  it('adding or archiving an origin changes the config, sdk.js and both ETags from the next request on', async () => {
    const site = await createReadySite(t, tenant.liveKey);
    const before = await originsOf(site);
    t.clock.advance(1); // added after the others: listed after them
    const added = await t.http.post(`/v1/channels/${site.channelId}/origins`, {
      key: tenant.liveKey,
      body: { origin: 'https://checkout.example.com' },
    });
    expect(added.status, added.text).toBe(201);
    const after = await originsOf(site);
    expect(after.origins).toEqual([...before.origins, 'https://checkout.example.com']);
    expect(after.configTag).not.toBe(before.configTag);
    expect(after.sdkTag).not.toBe(before.sdkTag);
    // A browser holding the old answers gets the new ones, not a 304.
    expect((await get(site.siteKey, 'config', { 'if-none-match': before.configTag })).status).toBe(200);
    expect((await get(site.siteKey, 'sdk.js', { 'if-none-match': before.sdkTag })).status).toBe(200);

    const archived = await t.http.post(
      `/v1/channels/${site.channelId}/origins/${added.body.data.id}/archive`,
      {
        key: tenant.liveKey,
      },
    );
    expect(archived.status, archived.text).toBe(200);
    const last = await originsOf(site);
    expect(last.origins).toEqual(before.origins);
    // The configVersion did not move (origins are not what visitors are asked), so neither did the bytes.
    expect(last.configTag).toBe(before.configTag);
  });

  it('an origin archived behind the cache (a missed change notification) leaves the config at the next re-check', async () => {
    const site = await createReadySite(t, tenant.liveKey);
    const before = await originsOf(site);
    // As if another replica's notification was lost: the row changes, nobody is told.
    await rawSql(t.store).execute(
      sql`UPDATE origins SET status = 'archived', archived_at = now() WHERE channel_id = ${site.channelId} AND origin = ${WILDCARD_ORIGIN}`,
    );
    expect((await originsOf(site)).origins).toEqual(before.origins); // still the cached answer
    t.clock.advance(SITE_CACHE_NOTIFIED_TTL_MS);
    const after = await originsOf(site);
    expect(after.origins).toEqual([SITE_ORIGIN]);
    expect(after.configTag).not.toBe(before.configTag);
    expect(after.sdkTag).not.toBe(before.sdkTag);
  });
});

describe('a test channel accepts pages on localhost without registering them; a live channel never does', () => {
  /** The answers of every public POST (and the config's CORS) to a page on `origin`. */
  async function fromPage(site: ReadySite, origin: string, token: string) {
    const preflight = await t.http.request('OPTIONS', `/v1/public/sites/${site.siteKey}/preferences`, {
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    const preferences = await postPreferences(t, site.siteKey, preferencesBody(site), { origin });
    const impressions = await t.http.post(`/v1/public/sites/${site.siteKey}/impressions`, {
      body: { configVersion: site.configVersion },
      headers: { origin },
    });
    const identity = await identify(t, site.siteKey, token, origin);
    const config = await get(site.siteKey, 'config', { origin });
    return { preflight, preferences, impressions, identity, config };
  }

  async function siteWithToken(key: string) {
    const site = await createReadySite(t, key);
    const secret = await createIdentitySecret(t, key, site.channelId);
    return { site, token: await mintToken(t, secret.secret, site.siteKey) };
  }

  it('test channel: every public POST from http://localhost and http://127.0.0.1, any port, with CORS', async () => {
    const { site, token } = await siteWithToken(tenant.testKey);
    for (const origin of LOCAL_PAGES) {
      const answers = await fromPage(site, origin, token);
      expect(answers.preflight.status, origin).toBe(204);
      expect(answers.preferences.status, answers.preferences.text).toBe(201);
      expect(answers.impressions.status, answers.impressions.text).toBe(204);
      expect(answers.identity.status, answers.identity.text).toBe(200);
      for (const [name, res] of Object.entries(answers)) {
        expect(res.headers.get('access-control-allow-origin'), `${name} from ${origin}`).toBe(origin);
      }
    }
    const evidence = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=100`, {
      key: tenant.testKey,
    });
    expect(evidence.body.data.map((e: { origin: string }) => e.origin).sort()).toEqual(
      [...LOCAL_PAGES].sort(),
    );
  });

  it('test channel: near misses of localhost are refused unless registered', async () => {
    const { site, token } = await siteWithToken(tenant.testKey);
    for (const origin of NOT_LOCAL) {
      const answers = await fromPage(site, origin, token);
      expectProblemShape(answers.preflight, 403, 'origin_not_allowed');
      expectProblemShape(answers.preferences, 403, 'origin_not_allowed');
      expectProblemShape(answers.impressions, 403, 'origin_not_allowed');
      expectProblemShape(answers.identity, 403, 'origin_not_allowed');
      expect(answers.config.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('live channel: localhost pages are refused until registered, and then only the registered one', async () => {
    const { site, token } = await siteWithToken(tenant.liveKey);
    for (const origin of LOCAL_PAGES) {
      const answers = await fromPage(site, origin, token);
      expectProblemShape(answers.preflight, 403, 'origin_not_allowed');
      expectProblemShape(answers.preferences, 403, 'origin_not_allowed');
      expectProblemShape(answers.impressions, 403, 'origin_not_allowed');
      expectProblemShape(answers.identity, 403, 'origin_not_allowed');
      expect(answers.config.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
    const added = await t.http.post(`/v1/channels/${site.channelId}/origins`, {
      key: tenant.liveKey,
      body: { origin: 'http://localhost:5173' },
    });
    expect(added.status, added.text).toBe(201);
    expect(
      (await postPreferences(t, site.siteKey, preferencesBody(site), { origin: 'http://localhost:5173' }))
        .status,
    ).toBe(201);
    expectProblemShape(
      await postPreferences(t, site.siteKey, preferencesBody(site), { origin: 'http://localhost:5174' }),
      403,
      'origin_not_allowed',
    );
  });
});
