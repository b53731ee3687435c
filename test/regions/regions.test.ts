import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceEventBody } from '../../src/modules/evidence/evidence.presenters.ts';
import { evidenceRepo } from '../../src/modules/evidence/evidence.repo.ts';
import type { EvidenceRow } from '../../src/modules/evidence/evidence.tables.ts';
import { evidenceLeafHash } from '../../src/modules/evidence/leaf-hash.ts';
import { newId } from '../../src/platform/ids.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { writeMmdb } from '../helpers/mmdb-writer.ts';
import { createReadySite, postPreferences, preferencesBody, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * Regions and regimes through the real HTTP interface (docs/regions.md): the channel fields, material
 * changes, the config answer per resolved region, and what evidence records.
 */

const US_OPT_OUT = [
  { regions: ['EEA', 'GB'], regime: 'opt-in' },
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['BR'], regime: 'notice-only' },
  { regions: ['*'], regime: 'opt-in' },
];

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const response = await res;
  expect(response.status, response.text).toBe(status);
  return response.body.data;
}

const config = (siteKey: string, query = '', headers: Record<string, string> = {}) =>
  t.http.get(`/v1/public/sites/${siteKey}/config${query}`, { headers });

describe('channel fields regionRules and consentMaxAgeDays', () => {
  it('are set on create and PATCH, shown on the channel and in the snapshot; a change is a new version', async () => {
    const channel = await ok(
      t.http.post('/v1/channels', {
        key: tenant.testKey,
        body: { name: 'Regions', regionRules: US_OPT_OUT, consentMaxAgeDays: 365 },
      }),
      201,
    );
    expect(channel.regionRules).toEqual(US_OPT_OUT);
    expect(channel.consentMaxAgeDays).toBe(365);
    const v1 = await ok(t.http.get(`/v1/channels/${channel.id}/config-versions/1`, { key: tenant.testKey }));
    expect(v1.config).toMatchObject({ regionRules: US_OPT_OUT, consentMaxAgeDays: 365 });

    const rules = [{ regions: ['US-CA', 'US-VA'], regime: 'opt-out' }];
    const updated = await ok(
      t.http.patch(`/v1/channels/${channel.id}`, { key: tenant.testKey, body: { regionRules: rules } }),
    );
    expect(updated).toMatchObject({ regionRules: rules, consentMaxAgeDays: 365, configVersion: 2 });
    // The empty list is allowed: no rule matches, so opt-in everywhere.
    const empty = await ok(
      t.http.patch(`/v1/channels/${channel.id}`, { key: tenant.testKey, body: { regionRules: [] } }),
    );
    expect(empty.regionRules).toEqual([]);
    const served = await ok(config(empty.siteKey, '?region=US-CA'));
    expect(served.regime).toBe('opt-in');
  });

  it('refuse bad codes and bounds with 422 validation_failed, one error per bad value', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: {
        name: 'Bad',
        regionRules: [
          { regions: ['FR', 'US-ZZ'], regime: 'opt-in' },
          { regions: ['UK'], regime: 'opt-out' },
        ],
      },
    });
    expectProblemShape(res, 422, 'validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/regionRules/0/regions/1',
      '/regionRules/1/regions/0',
    ]);
    for (const body of [
      { regionRules: [{ regions: ['usa'], regime: 'opt-in' }] },
      { regionRules: [{ regions: [], regime: 'opt-in' }] },
      { regionRules: [{ regions: ['FR'], regime: 'opt-maybe' }] },
      { regionRules: [{ regions: ['FR'], regime: 'opt-in', extra: 1 }] },
      { consentMaxAgeDays: 29 },
      { consentMaxAgeDays: 396 },
      { consentMaxAgeDays: 90.5 },
    ]) {
      expectProblemShape(
        await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'Bad', ...body } }),
        422,
        'validation_failed',
      );
    }
    const site = await createReadySite(t, tenant.testKey);
    const patch = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: { regionRules: [{ regions: ['XX'], regime: 'opt-in' }] },
    });
    expectProblemShape(patch, 422, 'validation_failed');
    expect(patch.body.errors[0].path).toBe('/regionRules/0/regions/0');
    // Nothing changed.
    const after = await ok(t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey }));
    expect(after.configVersion).toBe(site.configVersion);
  });
});

describe('material changes: reconsent and consentRequiredSince', () => {
  it('each kind of change gives its documented reconsent, and the config the newest material version', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const key = tenant.testKey;
    const base = `/v1/channels/${site.channelId}`;
    const purposes = await ok(t.http.get(`${base}/purposes`, { key }));
    const analytics = purposes.find((p: { key: string }) => p.key === 'analytics').id;
    const marketing = purposes.find((p: { key: string }) => p.key === 'marketing').id;
    const changes: Array<[string, () => Promise<unknown>, boolean]> = [
      [
        'a translation added',
        () =>
          t.http.patch(`${base}/purposes/${analytics}`, {
            key,
            body: {
              translations: {
                de: { name: 'Statistik', description: null },
                fr: { name: 'Mesure', description: null },
              },
            },
          }),
        false,
      ],
      [
        'a technology added',
        () => t.http.post(`${base}/technologies`, { key, body: { name: 'GA4', purposeKeys: ['analytics'] } }),
        false,
      ],
      [
        'consentMaxAgeDays changed',
        () => t.http.patch(base, { key, body: { consentMaxAgeDays: 90 } }),
        false,
      ],
      [
        'the policy URL changed',
        () => t.http.patch(base, { key, body: { privacyPolicy: { url: 'https://shop.example.com/p2' } } }),
        false,
      ],
      [
        'rules rewritten with the same effect',
        () =>
          t.http.patch(base, {
            key,
            body: {
              regionRules: [
                { regions: ['EEA'], regime: 'opt-in' },
                { regions: ['*'], regime: 'opt-in' },
              ],
            },
          }),
        false,
      ],
      [
        'a purpose renamed',
        () => t.http.patch(`${base}/purposes/${analytics}`, { key, body: { name: 'Stats' } }),
        true,
      ],
      [
        'a legal basis changed',
        () =>
          t.http.patch(`${base}/purposes/${marketing}`, { key, body: { legalBasis: 'legitimate_interest' } }),
        true,
      ],
      [
        'a purpose added',
        () => t.http.post(`${base}/purposes`, { key, body: { key: 'video', name: 'Video' } }),
        true,
      ],
      [
        'the policy version changed',
        () => t.http.patch(base, { key, body: { privacyPolicy: { version: '2025-01' } } }),
        true,
      ],
      [
        'a region’s regime changed',
        () => t.http.patch(base, { key, body: { regionRules: US_OPT_OUT } }),
        true,
      ],
    ];
    let version = site.configVersion;
    let since = site.configVersion;
    for (const [label, change, material] of changes) {
      const res = (await change()) as { status: number; text: string };
      expect(res.status, `${label}: ${res.text}`).toBeLessThan(300);
      version += 1;
      const row = await ok(t.http.get(`${base}/config-versions/${version}`, { key }));
      expect(row.reconsent, label).toBe(material);
      if (material) since = version;
      const served = await ok(config(site.siteKey));
      expect(served.configVersion, label).toBe(version);
      expect(served.consentRequiredSince, label).toBe(since);
    }
    // The list shows the flag too.
    const list = await t.http.get(`${base}/config-versions?limit=100`, { key });
    expect(list.body.data.every((v: { reconsent: unknown }) => typeof v.reconsent === 'boolean')).toBe(true);
  });
});

describe('GET …/config per region', () => {
  it('declared on a test channel: region, regime and an ETag of their own per region', async () => {
    const site = await createReadySite(t, tenant.testKey);
    await ok(
      t.http.patch(`/v1/channels/${site.channelId}`, {
        key: tenant.testKey,
        body: { regionRules: US_OPT_OUT },
      }),
    );
    const expected: Array<[string, string]> = [
      ['FR', 'opt-in'],
      ['US-CA', 'opt-out'],
      ['US', 'opt-out'],
      ['BR-SP', 'notice-only'],
      ['JP', 'opt-in'],
    ];
    const etags = new Set<string>();
    for (const [region, regime] of expected) {
      const res = await config(site.siteKey, `?region=${region}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject({
        region: { code: region, source: 'declared' },
        regime,
        consentMaxAgeDays: 180,
        regionRules: US_OPT_OUT,
      });
      expect(res.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
      const etag = res.headers.get('etag') as string;
      etags.add(etag);
      // The ETag is the region's: a 304 for it, a 200 for another region's.
      expect((await config(site.siteKey, `?region=${region}`, { 'if-none-match': etag })).status).toBe(304);
    }
    expect(etags.size).toBe(expected.length);
    const unknown = await config(site.siteKey);
    expect(unknown.body.data).toMatchObject({ region: { code: null, source: 'unknown' }, regime: 'opt-in' });
    expect(etags.has(unknown.headers.get('etag') as string)).toBe(false);
  });

  it('a declared region is checked on a test channel; on a live one a well-formed code is ignored, a malformed one refused', async () => {
    const test = await createReadySite(t, tenant.testKey);
    for (const bad of ['usa', 'EU', '*', 'US-ZZ', 'ZZ']) {
      const res = await config(test.siteKey, `?region=${encodeURIComponent(bad)}`);
      expectProblemShape(res, 422, 'validation_failed');
      expect(res.body.errors[0].path).toBe('query:/region');
    }
    const live = await createReadySite(t, tenant.liveKey);
    await ok(
      t.http.patch(`/v1/channels/${live.channelId}`, {
        key: tenant.liveKey,
        body: { regionRules: US_OPT_OUT },
      }),
    );
    for (const declared of ['US-CA', 'ZZ']) {
      const res = await config(live.siteKey, `?region=${declared}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ region: { code: null, source: 'unknown' }, regime: 'opt-in' });
    }
    // Not of the form the document's pattern states: refused whatever the channel.
    for (const malformed of ['usa', 'US-CALIF']) {
      const res = await config(live.siteKey, `?region=${malformed}`);
      expect(expectProblemShape(res, 422, 'validation_failed').errors[0].path).toBe('query:/region');
    }
  });

  it('geo headers are not believed while GEO_COUNTRY_HEADER is unset', async () => {
    const site = await createReadySite(t, tenant.liveKey);
    const res = await config(site.siteKey, '', { 'cloudfront-viewer-country': 'US', 'cf-ipcountry': 'US' });
    expect(res.body.data.region).toEqual({ code: null, source: 'unknown' });
    expect(res.headers.get('vary')).toBe('Origin');
  });
});

describe('evidence records the region', () => {
  it('region, regionSource and regime of each decision; filters region (a country covers its subdivisions) and regime', async () => {
    const other = await t.tenant();
    const site = await createReadySite(t, other.testKey);
    await ok(
      t.http.patch(`/v1/channels/${site.channelId}`, {
        key: other.testKey,
        body: { regionRules: US_OPT_OUT },
      }),
    );
    const current = await ok(t.http.get(`/v1/channels/${site.channelId}`, { key: other.testKey }));
    const ids: Record<string, string> = {};
    for (const region of ['FR', 'US-CA', 'US', 'US-NY', 'BR']) {
      const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=${region}`, {
        body: preferencesBody(site, { configVersion: current.configVersion }),
        headers: { origin: 'https://shop.example.com' },
      });
      expect(res.status, res.text).toBe(201);
      ids[region] = res.body.data.id;
    }
    const unknown = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, { configVersion: current.configVersion }),
    );
    expect(unknown.status).toBe(201);

    const event = await ok(t.http.get(`/v1/evidence/${ids['US-CA']}`, { key: other.testKey }));
    expect(event).toMatchObject({ region: 'US-CA', regionSource: 'declared', regime: 'opt-out' });
    const none = await ok(t.http.get(`/v1/evidence/${unknown.body.data.id}`, { key: other.testKey }));
    expect(none).toMatchObject({ region: null, regionSource: 'unknown', regime: 'opt-in' });

    const listed = async (query: string) =>
      (await ok(t.http.get(`/v1/evidence?${query}`, { key: other.testKey })))
        .map((e: { id: string }) => e.id)
        .sort();
    expect(await listed('region=US')).toEqual([ids['US-CA'], ids.US, ids['US-NY']].sort());
    expect(await listed('region=US-CA')).toEqual([ids['US-CA']]);
    expect(await listed('region=FR')).toEqual([ids.FR]);
    expect(await listed('regime=opt-out')).toEqual([ids['US-CA'], ids.US, ids['US-NY']].sort());
    expect(await listed('regime=notice-only')).toEqual([ids.BR]);
    expect(await listed('region=US&regime=opt-in')).toEqual([]);
    for (const bad of ['region=usa', 'region=US-ZZ', 'region=EU', 'regime=opt-maybe']) {
      expectProblemShape(
        await t.http.get(`/v1/evidence?${bad}`, { key: other.testKey }),
        422,
        'validation_failed',
      );
    }
  });

  it('an event recorded before regions existed keeps its members and its receipt', async () => {
    const site = await createReadySite(t, tenant.testKey);
    // As migration 0017 leaves an older row: the three columns null.
    const row: EvidenceRow = {
      organizationId: tenant.organizationId,
      id: newId('evt'),
      environment: 'test',
      channelId: site.channelId,
      subjectPseudonym: `psn_${'b'.repeat(64)}`,
      decisions: { analytics: 'granted' },
      configVersion: 1,
      policyVersion: '2024-05',
      source: 'banner',
      language: 'en',
      gpc: false,
      origin: 'https://shop.example.com',
      userAgent: null,
      ipPrefix: null,
      region: null,
      regionSource: null,
      regime: null,
      gppString: null,
      tcString: null,
      tcf: null,
      recordedAt: new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000),
      receiptHash: '',
      receiptTokenHash: null,
      purgedAt: null,
    };
    row.receiptHash = evidenceLeafHash(evidenceEventBody(row, 'unmasked'));
    await t.store.tx((tx) => evidenceRepo.insertMany(tx, [row]));
    const shown = await ok(t.http.get(`/v1/evidence/${row.id}`, { key: tenant.testKey }));
    expect(Object.keys(shown)).not.toContain('region');
    expect(Object.keys(shown)).not.toContain('regionSource');
    expect(Object.keys(shown)).not.toContain('regime');
    expect(evidenceLeafHash({ ...shown, subject: { pseudonym: row.subjectPseudonym } })).toBe(
      shown.receipt.hash,
    );
    expect(shown.receipt.hash).toBe(row.receiptHash);
  });

  it('a declared region on a preferences request to a test channel is checked like the config’s', async () => {
    const site = await createReadySite(t, tenant.testKey);
    const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=usa`, {
      body: preferencesBody(site),
      headers: { origin: 'https://shop.example.com' },
    });
    expectProblemShape(res, 422, 'validation_failed');
  });
});

/** A GeoIP database for the resolver tests: France, California, Germany over IPv6. */
const GEOIP = writeMmdb({
  databaseType: 'GeoLite2-City',
  networks: [
    { network: '192.0.2.0/24', data: { country: { iso_code: 'FR' }, subdivisions: [{ iso_code: 'IDF' }] } },
    { network: '198.51.100.0/24', data: { country: { iso_code: 'US' }, subdivisions: [{ iso_code: 'CA' }] } },
    { network: '2001:db8::/32', data: { country: { iso_code: 'DE' }, subdivisions: [{ iso_code: 'BY' }] } },
  ],
});

describe('resolution from trusted geo headers and GEOIP_DATABASE', () => {
  let geo: TestApp;
  let owner: Tenant;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regions-app-'));
    const database = path.join(dir, 'city.mmdb');
    fs.writeFileSync(database, GEOIP);
    geo = await startTestApp({
      env: {
        ...SITES_TEST_ENV,
        GEO_COUNTRY_HEADER: 'CloudFront-Viewer-Country',
        GEO_SUBDIVISION_HEADER: 'CloudFront-Viewer-Country-Region',
        GEOIP_DATABASE: database,
        // The client address comes from X-Forwarded-For, so one test plays visitors from many networks.
        TRUST_PROXY: 'true',
      },
    });
    owner = await geo.tenant();
  });
  afterAll(async () => {
    await geo.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function liveSite() {
    const site = await createReadySite(geo, owner.liveKey);
    await ok(
      geo.http.patch(`/v1/channels/${site.channelId}`, {
        key: owner.liveKey,
        body: { regionRules: US_OPT_OUT },
      }),
    );
    return site;
  }

  it('headers first, then the address; Vary names the headers; answers by address are private', async () => {
    const site = await liveSite();
    const get = (headers: Record<string, string>) =>
      geo.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers });
    const cases: Array<[Record<string, string>, { code: string | null; source: string }, string, string]> = [
      [
        { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'CA' },
        { code: 'US-CA', source: 'header' },
        'opt-out',
        'public, max-age=60, stale-while-revalidate=600',
      ],
      [
        { 'cloudfront-viewer-country': 'fr' },
        { code: 'FR', source: 'header' },
        'opt-in',
        'public, max-age=60, stale-while-revalidate=600',
      ],
      // A subdivision that is not the country's is dropped; the country still counts.
      [
        { 'cloudfront-viewer-country': 'BR', 'cloudfront-viewer-country-region': 'CA' },
        { code: 'BR', source: 'header' },
        'notice-only',
        'public, max-age=60, stale-while-revalidate=600',
      ],
      // Not a country (Cloudflare's XX): the next source, the address.
      [
        { 'cloudfront-viewer-country': 'XX', 'x-forwarded-for': '198.51.100.7' },
        { code: 'US-CA', source: 'geoip' },
        'opt-out',
        'private, max-age=60, stale-while-revalidate=600',
      ],
      [
        { 'x-forwarded-for': '192.0.2.10' },
        { code: 'FR-IDF', source: 'geoip' },
        'opt-in',
        'private, max-age=60, stale-while-revalidate=600',
      ],
      [
        { 'x-forwarded-for': '2001:db8::1' },
        { code: 'DE-BY', source: 'geoip' },
        'opt-in',
        'private, max-age=60, stale-while-revalidate=600',
      ],
      [
        { 'x-forwarded-for': '203.0.113.9' },
        { code: null, source: 'unknown' },
        'opt-in',
        'private, max-age=60, stale-while-revalidate=600',
      ],
    ];
    for (const [headers, region, regime, cacheControl] of cases) {
      const res = await get(headers);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.region, JSON.stringify(headers)).toEqual(region);
      expect(res.body.data.regime, JSON.stringify(headers)).toBe(regime);
      expect(res.headers.get('cache-control'), JSON.stringify(headers)).toBe(cacheControl);
      expect(res.headers.get('vary')).toBe(
        'Origin, CloudFront-Viewer-Country, CloudFront-Viewer-Country-Region',
      );
    }
  });

  it('the answer comes from the fast path and the Fastify route alike, and decisions record the same region', async () => {
    const site = await liveSite();
    const headers = { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'US-VA' };
    // The first read loads the site (Fastify route); the second is answered from the cache (fast path).
    const first = await geo.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers });
    const second = await geo.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers });
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(first.body.data.region).toEqual({ code: 'US-VA', source: 'header' });
    const configVersion = first.body.data.configVersion;
    const recorded = await postPreferences(geo, site.siteKey, preferencesBody(site, { configVersion }), {
      headers,
    });
    expect(recorded.status, recorded.text).toBe(201);
    const byAddress = await postPreferences(geo, site.siteKey, preferencesBody(site, { configVersion }), {
      headers: { 'x-forwarded-for': '192.0.2.44' },
    });
    const events = await Promise.all(
      [recorded, byAddress].map((r) =>
        ok(geo.http.get(`/v1/evidence/${r.body.data.id}`, { key: owner.liveKey })),
      ),
    );
    expect(events.map((e) => [e.region, e.regionSource, e.regime])).toEqual([
      ['US-VA', 'header', 'opt-out'],
      ['FR-IDF', 'geoip', 'opt-in'],
    ]);
  });
});
