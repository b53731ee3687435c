import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';

/**
 * An origin is exactly `scheme://host[:port]`: with a path, userinfo or a space around it, it is
 * not one. Registering such a string is 422 invalid_origin; an Origin header like that is foreign
 * (403 origin_not_allowed without CORS headers), though its scheme and host are a registered
 * origin's, on every public route that checks the Origin.
 */

let t: TestApp;
let tenant: Tenant;
let s: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  s = await createReadySite(t, tenant.testKey);
}, 60_000);
afterAll(() => t.close());

/** Origin headers that name a registered origin's scheme and host, and more. */
const NEAR_MISSES = [
  `${SITE_ORIGIN}/`,
  `${SITE_ORIGIN}/checkout`,
  `${SITE_ORIGIN}?`,
  'https://visitor:secret@shop.example.com',
  'https://@shop.example.com',
  `${WILDCARD_MATCH}/path`,
  'https://user@blog.example.org',
];

describe('registering an origin', () => {
  it('with a leading or trailing space, a tab or newline inside, a path or userinfo: 422 invalid_origin', async () => {
    for (const origin of [
      ' https://shop.example.net',
      'https://shop.example.net ',
      '\thttps://shop.example.net',
      'https://shop.exa\tmple.net',
      'https://shop.example.net\n',
      'https://shop.example.net/path',
      'https://user@shop.example.net',
      'https://user:pw@shop.example.net',
    ]) {
      const res = await t.http.post(`/v1/channels/${s.channelId}/origins`, {
        key: tenant.testKey,
        body: { origin },
      });
      const problem = expectProblemShape(res, 422, 'invalid_origin');
      expect(problem.errors[0].path, JSON.stringify(origin)).toBe('/origin');
    }
    const origins = await t.http.get(`/v1/channels/${s.channelId}/origins`, { key: tenant.testKey });
    expect(origins.body.data.map((o: { origin: string }) => o.origin).sort()).toEqual(
      ['https://*.example.org', SITE_ORIGIN].sort(),
    );
  });
});

describe('an Origin header with a path or userinfo', () => {
  it('is foreign for decisions: 403 origin_not_allowed without CORS headers', async () => {
    // The registered origins themselves pass.
    for (const origin of [SITE_ORIGIN, WILDCARD_MATCH]) {
      expect((await postPreferences(t, s.siteKey, preferencesBody(s), { origin })).status).toBe(201);
    }
    for (const origin of NEAR_MISSES) {
      const res = await postPreferences(t, s.siteKey, preferencesBody(s), { origin });
      expectProblemShape(res, 403, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('is foreign for impressions and preflights', async () => {
    for (const origin of NEAR_MISSES) {
      const impression = await t.http.post(`/v1/public/sites/${s.siteKey}/impressions`, {
        headers: { origin },
        body: { configVersion: s.configVersion },
      });
      expectProblemShape(impression, 403, 'origin_not_allowed');
      const preflight = await t.http.request('OPTIONS', `/v1/public/sites/${s.siteKey}/preferences`, {
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expectProblemShape(preflight, 403, 'origin_not_allowed');
      expect(preflight.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('gets no CORS headers on the config read', async () => {
    const allowed = await t.http.get(`/v1/public/sites/${s.siteKey}/config`, {
      headers: { origin: SITE_ORIGIN },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
    for (const origin of NEAR_MISSES) {
      const res = await t.http.get(`/v1/public/sites/${s.siteKey}/config`, { headers: { origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });
});

describe('an Origin header with a space before it', () => {
  // HTTP clients and Node's parser strip spaces around a header value, so the value is handed to
  // the app as it is (light-my-request keeps it).
  it('is foreign: 403 origin_not_allowed', async () => {
    for (const origin of [` ${SITE_ORIGIN}`, `\t${SITE_ORIGIN}`, `${SITE_ORIGIN} `]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/public/sites/${s.siteKey}/preferences`,
        headers: { origin, 'content-type': 'application/json' },
        payload: preferencesBody(s),
      });
      expect(res.statusCode, JSON.stringify(origin)).toBe(403);
      expect(res.json().code).toBe('origin_not_allowed');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
