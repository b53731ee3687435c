import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_CACHE_NOTIFIED_TTL_MS } from '../../src/modules/sites/site-cache.ts';
import { BANNER_WORDS } from '../../src/shared/banner-words.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
  WILDCARD_ORIGIN,
} from '../helpers/sites.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const site = (siteKey: string, part: string, headers: Record<string, string> = {}) =>
  t.http.get(`/v1/public/sites/${siteKey}/${part}`, { headers });

describe('GET …/snippet', () => {
  it('is the script tag that loads the SDK for the site, in an envelope', async () => {
    const s = await createReadySite(t, tenant.testKey);
    const res = await site(s.siteKey, 'snippet');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        html: `<script src="${t.config.baseUrl}/v1/public/sites/${s.siteKey}/sdk.js" data-site-key="${s.siteKey}" async></script>`,
        // No firstPartyPath: the direct form is the one to paste.
        firstPartyHtml: null,
        directHtml: `<script src="${t.config.baseUrl}/v1/public/sites/${s.siteKey}/sdk.js" data-site-key="${s.siteKey}" async></script>`,
      },
      meta: {},
      error: null,
    });
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });
});

describe('GET …/config', () => {
  it('is the snapshot of the current configVersion, the same as the config-versions API shows', async () => {
    const s = await createReadySite(t, tenant.liveKey);
    const res = await site(s.siteKey, 'config');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const version = await t.http.get(`/v1/channels/${s.channelId}/config-versions/${s.configVersion}`, {
      key: tenant.liveKey,
    });
    // The snapshot's `tcf` (null here) is its own: only TCF channels in opt-in regions get one.
    const { tcf, ...snapshot } = version.body.data.config;
    expect(tcf).toBeNull();
    expect(res.body).toEqual({
      data: {
        ...snapshot,
        region: { code: null, source: 'unknown' },
        regime: 'opt-in',
        consentRequiredSince: s.configVersion,
        // Where its pages may run (a live channel: its registered origins alone).
        origins: expect.arrayContaining([SITE_ORIGIN, WILDCARD_ORIGIN]),
        // crossDomain is off: no sibling domains.
        siblingDomains: [],
        // A purpose has German words: the banner's own German words come with them.
        bannerWords: { de: BANNER_WORDS.de },
      },
      meta: {},
      error: null,
    });
    expect(res.body.data.configVersion).toBe(s.configVersion);
    expect(res.body.data.purposes.map((p: { key: string }) => p.key)).toEqual([
      'necessary',
      'analytics',
      'marketing',
    ]);
    expect(res.body.data.languages).toEqual(['de', 'en']);
  });

  it('If-None-Match with the ETag is a 304 without a body; another ETag is a 200', async () => {
    const s = await createReadySite(t, tenant.testKey);
    const first = await site(s.siteKey, 'config');
    const etag = first.headers.get('etag') as string;
    const again = await site(s.siteKey, 'config', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await site(s.siteKey, 'config', { 'if-none-match': `W/${etag}, "x"` })).status).toBe(304);
    expect((await site(s.siteKey, 'config', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('a purpose change shows its new configVersion and ETag from the next request on', async () => {
    const s = await createReadySite(t, tenant.testKey);
    const before = await site(s.siteKey, 'config');
    const added = await t.http.post(`/v1/channels/${s.channelId}/purposes`, {
      key: tenant.testKey,
      body: { key: 'personalization', name: 'Personalization' },
    });
    expect(added.status).toBe(201);
    // The change's commit dropped the cached site: no clock movement needed.
    const after = await site(s.siteKey, 'config');
    expect(after.body.data.configVersion).toBe(s.configVersion + 1);
    expect(after.body.data.purposes.map((p: { key: string }) => p.key)).toContain('personalization');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const stale = await site(s.siteKey, 'config', { 'if-none-match': before.headers.get('etag') as string });
    expect(stale.status).toBe(200);
    // An unchanged version keeps its ETag across re-checks.
    t.clock.advance(SITE_CACHE_NOTIFIED_TTL_MS);
    expect((await site(s.siteKey, 'config')).headers.get('etag')).toBe(after.headers.get('etag'));
  });

  it('answers registered origins (exact and wildcard) with CORS headers, others without', async () => {
    const s = await createReadySite(t, tenant.testKey);
    for (const origin of [SITE_ORIGIN, WILDCARD_MATCH]) {
      const res = await site(s.siteKey, 'config', { origin });
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('vary')).toMatch(/origin/i);
    }
    const foreign = await site(s.siteKey, 'config', { origin: 'https://evil.example.net' });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toMatch(/origin/i);
  });
});

describe('GET …/sdk.js', () => {
  it('is JavaScript, cacheable, with an ETag', async () => {
    const s = await createReadySite(t, tenant.testKey);
    const res = await site(s.siteKey, 'sdk.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
    expect(res.text).toContain('ConsentService');
    // It parses as a script.
    expect(() => new Function(res.text)).not.toThrow();
    const etag = res.headers.get('etag') as string;
    expect((await site(s.siteKey, 'sdk.js', { 'if-none-match': etag })).status).toBe(304);
  });
});

describe('unknown and archived sites', () => {
  it('are 404 not_found on every public endpoint', async () => {
    const s = await createReadySite(t, tenant.testKey);
    const paths = ['snippet', 'config', 'sdk.js'];
    for (const siteKey of ['site_test_doesNotExist000000000000', 'nope', 'site_live_%E2%82%AC']) {
      for (const part of paths) expectProblemShape(await site(siteKey, part), 404, 'not_found');
      expectProblemShape(
        await t.http.post(`/v1/public/sites/${siteKey}/preferences`, {
          body: {},
          headers: { origin: SITE_ORIGIN },
        }),
        404,
        'not_found',
      );
      expectProblemShape(
        await t.http.request('OPTIONS', `/v1/public/sites/${siteKey}/preferences`, {
          headers: { origin: SITE_ORIGIN, 'access-control-request-method': 'POST' },
        }),
        404,
        'not_found',
      );
    }
    expect((await site(s.siteKey, 'config')).status).toBe(200);
    const archived = await t.http.post(`/v1/channels/${s.channelId}/archive`, { key: tenant.testKey });
    expect(archived.status).toBe(200);
    for (const part of paths) expectProblemShape(await site(s.siteKey, part), 404, 'not_found');
    const post = await t.http.post(`/v1/public/sites/${s.siteKey}/preferences`, {
      body: { subjectId: 'visitor-1234', decisions: {}, configVersion: 1 },
      headers: { origin: SITE_ORIGIN },
    });
    expectProblemShape(post, 404, 'not_found');
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the site cache of another replica', () => {
  it('drops its cached site when a change commits elsewhere, without waiting for a TTL', async () => {
    // On PostgreSQL the replica has its own pool and hears the change through NOTIFY; the embedded
    // store is one process, so there the replica shares the store and its in-process notifications.
    const replica = process.env.DATABASE_URL
      ? await startTestApp({ env: SITES_TEST_ENV })
      : await startTestApp({ env: SITES_TEST_ENV, store: t.store });
    try {
      const s = await createReadySite(t, tenant.testKey);
      const fromReplica = () => replica.http.get(`/v1/public/sites/${s.siteKey}/config`);
      expect((await fromReplica()).status).toBe(200); // now cached by the replica
      const archived = await t.http.post(`/v1/channels/${s.channelId}/archive`, { key: tenant.testKey });
      expect(archived.status).toBe(200);
      // Neither app's clock moves: only the notification can make the replica see the archive.
      let status = 200;
      for (const deadline = Date.now() + 10_000; status !== 404 && Date.now() < deadline; ) {
        status = (await fromReplica()).status;
        if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(404);
    } finally {
      await replica.close();
    }
  });
});
