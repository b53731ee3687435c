import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pieceBundle } from '../../src/modules/sites/sdk-bundle.ts';
import { carriedConfig } from '../../src/modules/sites/sites.service.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * Over HTTP: sdk.js carries the site's config for the visitor's region (so the
 * banner needs no second request) and is cached as the config is; the lazily loaded bundles have
 * immutable versioned URLs; an impression may be a CORS-simple text/plain POST.
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, GEO_COUNTRY_HEADER: 'CloudFront-Viewer-Country' } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const US_OPT_OUT = [
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['*'], regime: 'opt-in' },
];

/** The config sdk.js carries: the statement in front of the bundle, run against a stand-in `self`. */
function carried(script: string, siteKey: string): Record<string, any> {
  const statement = script.slice(0, script.indexOf('\n'));
  const self: { __consentServiceConfigs?: Record<string, unknown> } = {};
  new Function('self', statement)(self);
  return self.__consentServiceConfigs?.[siteKey] as Record<string, any>;
}

describe('sdk.js carries the config', () => {
  it("holds GET …/config's answer for the visitor's region, varies and is cached as it is, and changes with it", async () => {
    const site = await createReadySite(t, tenant.testKey);
    const patch = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: { regionRules: US_OPT_OUT },
    });
    expect(patch.status, patch.text).toBe(200);
    for (const country of ['US', 'FR']) {
      const headers = { 'cloudfront-viewer-country': country };
      const sdk = await t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`, { headers });
      const config = await t.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers });
      expect(sdk.status).toBe(200);
      expect(carried(sdk.text, site.siteKey)).toEqual(config.body.data);
      // What the tracker scanner reads from the script: the config answer's very bytes.
      expect(carriedConfig(sdk.text)).toBe(config.text);
      expect(carried(sdk.text, site.siteKey).regime).toBe(country === 'US' ? 'opt-out' : 'opt-in');
      expect(sdk.headers.get('vary')).toBe('Accept-Encoding, CloudFront-Viewer-Country');
      expect(sdk.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
      expect(sdk.text).toContain('ConsentService');
    }

    // A new configVersion: a new sdk.js, whose old ETag no longer answers 304.
    const before = await t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`);
    const etag = before.headers.get('etag') as string;
    expect(
      (await t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`, { headers: { 'if-none-match': etag } }))
        .status,
    ).toBe(304);
    const purpose = await t.http.post(`/v1/channels/${site.channelId}/purposes`, {
      key: tenant.testKey,
      body: { key: 'video', name: 'Embedded video' },
    });
    expect(purpose.status, purpose.text).toBe(201);
    const after = await t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`, {
      headers: { 'if-none-match': etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(carried(after.text, site.siteKey).configVersion).toBe(
      carried(before.text, site.siteKey).configVersion + 1,
    );
    expect(carried(after.text, site.siteKey).purposes.map((p: { key: string }) => p.key)).toContain('video');
  });

  it('each site finds its own config: the key of the statement is the site key', async () => {
    const [a, b] = [await createReadySite(t, tenant.testKey), await createReadySite(t, tenant.testKey)];
    const sdkA = (await t.http.get(`/v1/public/sites/${a.siteKey}/sdk.js`)).text;
    expect(carried(sdkA, a.siteKey).configVersion).toBe(a.configVersion);
    expect(carried(sdkA, b.siteKey)).toBeUndefined();
  });
});

describe('lazily loaded bundles: immutable versioned URLs', () => {
  it('gpp.js and tcf.js by their own version are kept a year; by another version or none, minutes', async () => {
    const site = await createReadySite(t, tenant.testKey);
    for (const [file, bundle] of [
      ['gpp.js', pieceBundle('gpp')],
      ['tcf.js', pieceBundle('tcf')],
    ] as const) {
      const get = (query: string) => t.http.get(`/v1/public/sites/${site.siteKey}/${file}${query}`);
      const current = await get(`?v=${bundle.version}`);
      expect(current.status).toBe(200);
      expect(current.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      for (const query of ['', '?v=0123456789abcdef']) {
        const other = await get(query);
        expect(other.status).toBe(200);
        expect(other.headers.get('cache-control')).toBe('public, max-age=300');
        expect(other.text).toBe(current.text);
      }
      expectProblemShape(await get(`?v=${'x'.repeat(65)}`), 422, 'validation_failed');
    }
  });
});

describe('impressions as text/plain (no preflight)', () => {
  const post = (siteKey: string, body: string, headers: Record<string, string>) =>
    t.http.post(`/v1/public/sites/${siteKey}/impressions`, { rawBody: body, headers });

  it('counts a JSON body sent as text/plain from a registered origin; refuses bad JSON and foreign origins', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const json = JSON.stringify({ configVersion: site.configVersion, language: 'en' });
    const plain = { 'content-type': 'text/plain;charset=UTF-8', origin: SITE_ORIGIN };
    expect((await post(site.siteKey, json, plain)).status).toBe(204);
    expectProblemShape(await post(site.siteKey, '{"configVersion":', plain), 400, 'malformed_request');
    expectProblemShape(
      await post(site.siteKey, '{"configVersion":1,"language":"en","__proto__":{"x":1}}', plain),
      400,
      'malformed_request',
    );
    expectProblemShape(
      await post(site.siteKey, JSON.stringify({ configVersion: 'one' }), plain),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await post(site.siteKey, json, { ...plain, origin: 'https://evil.example.net' }),
      403,
      'origin_not_allowed',
    );
    await t.app.services.analytics.flushImpressions();
    const query = new URLSearchParams({ channelId: site.channelId });
    const totals = await t.http.get(`/v1/analytics/consent?${query}`, { key: tenant.testKey });
    expect(totals.status, totals.text).toBe(200);
    const counted = totals.body.data.map((row: { impressions: number }) => row.impressions);
    expect(counted.reduce((sum: number, n: number) => sum + n, 0)).toBe(1);
  });

  it('every other route still refuses text/plain with 415', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const body = JSON.stringify({
      subjectId: 'a'.repeat(16),
      decisions: {},
      configVersion: site.configVersion,
    });
    const preferences = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences`, {
      rawBody: body,
      headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
    });
    expectProblemShape(preferences, 415, 'unsupported_media_type');
    expectProblemShape(
      await t.http.post('/v1/channels', {
        key: tenant.testKey,
        rawBody: '{"name":"x"}',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
  });
});
