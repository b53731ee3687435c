import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBDIVISION_CODES } from '../../src/modules/regions/iso-3166-codes.ts';
import { sdkBundle } from '../../src/modules/sites/sdk-bundle.ts';
import { carriedConfig } from '../../src/modules/sites/sites.service.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * Over HTTP: sdk.js bodies are kept by the config they carry (its hash), for all
 * sites within SDK_CACHE_MB, each compressed once however many regions and requests share it; what
 * a browser gets (bytes once decoded, ETag, 304, Vary, Cache-Control, Content-Encoding) is as before.
 * Compressions, the cache's bytes and its evictions are read from /metrics.
 */
const CACHE_MB = 1;
const BOUND = CACHE_MB * 1024 * 1024;
const GEO = { GEO_COUNTRY_HEADER: 'X-Geo-Country', GEO_SUBDIVISION_HEADER: 'X-Geo-Subdivision' };
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, ...GEO, SDK_CACHE_MB: String(CACHE_MB) } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

const subdivisions = (country: string) =>
  (SUBDIVISION_CODES.find((line) => line.startsWith(`${country}:`)) as string).slice(3).split(' ');

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
interface Visit {
  encoding?: 'br' | 'gzip';
  country?: string;
  subdivision?: string;
  ifNoneMatch?: string;
}
const geoHeaders = (visit: Visit): Record<string, string> => ({
  ...(visit.country === undefined ? {} : { 'x-geo-country': visit.country }),
  ...(visit.subdivision === undefined ? {} : { 'x-geo-subdivision': visit.subdivision }),
});

/** sdk.js over raw HTTP (fetch would decompress it for us). */
function sdk(siteKey: string, visit: Visit = {}): Promise<Raw> {
  const headers = {
    ...geoHeaders(visit),
    ...(visit.encoding ? { 'accept-encoding': visit.encoding } : {}),
    ...(visit.ifNoneMatch ? { 'if-none-match': visit.ifNoneMatch } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.baseUrl}/v1/public/sites/${siteKey}/sdk.js`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
  });
}

function decoded(raw: Raw): string {
  const encoding = raw.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(raw.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(raw.body).toString('utf8');
  return raw.body.toString('utf8');
}

/** `GET …/config` for the same visitor: the bytes sdk.js must carry, and their ETag. */
async function config(siteKey: string, visit: Visit) {
  const res = await t.http.get(`/v1/public/sites/${siteKey}/config`, { headers: geoHeaders(visit) });
  expect(res.status).toBe(200);
  return { text: res.text, etag: res.headers.get('etag') as string };
}

/** sdk.js's ETag as it has always been: the config's, the bundle's, and the encoding. */
function expectedEtag(configEtag: string, encoding?: 'br' | 'gzip'): string {
  const suffix = encoding ? `-${encoding}` : '';
  return `"${configEtag.slice(1, -1)}.${sdkBundle().etag.slice(1, -1)}${suffix}"`;
}

async function metrics() {
  const text = (await t.http.get('/metrics')).text;
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  return {
    compressions: (encoding: 'br' | 'gzip', quality: 'best' | 'fast' = 'best') =>
      value(`consent_service_sdk_compressions_total{encoding="${encoding}",quality="${quality}"}`),
    cacheBytes: value('consent_service_sdk_cache_bytes'),
    evictions: value('consent_service_sdk_cache_evictions_total'),
    /** Whether the cache's size is reported at all (a cache that does not report it has no bound to show). */
    reportsBytes: text.includes('\nconsent_service_sdk_cache_bytes '),
  };
}

/** A minute later: the budget of best-quality brotli compressions is full again. */
const nextMinute = () => t.clock.advance(61_000);

describe('sdk.js bodies are kept by the config they carry', () => {
  it('regions that resolve to one config compress it once, concurrently and after the site cache reloads', async () => {
    nextMinute();
    const site = await createReadySite(t, tenant.testKey);
    // Spellings a CDN may send that all resolve to France (an unknown subdivision is dropped).
    const france: Visit[] = [
      { country: 'FR' },
      { country: 'fr' },
      { country: 'FR', subdivision: 'NOPE' },
      { country: ' fr ', subdivision: 'X1' },
    ];
    const before = await metrics();
    const etags = new Map<string, Set<string>>();
    for (const visit of france) {
      for (const encoding of ['br', 'gzip'] as const) {
        // Five visitors at once: one compression between them.
        const answers = await Promise.all(
          Array.from({ length: 5 }, () => sdk(site.siteKey, { ...visit, encoding })),
        );
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          expect(answer.headers['content-encoding']).toBe(encoding);
          etags.set(encoding, (etags.get(encoding) ?? new Set()).add(answer.headers.etag as string));
        }
      }
    }
    const walked = await metrics();
    expect(walked.compressions('br') - before.compressions('br')).toBe(1);
    expect(walked.compressions('gzip') - before.compressions('gzip')).toBe(1);
    expect([...etags.values()].map((set) => set.size)).toEqual([1, 1]);

    // Any channel change drops every cached site (the next request re-reads it): the config it
    // rebuilds has the same bytes, so its bodies are not compressed again.
    await createReadySite(t, tenant.testKey);
    for (const visit of france) {
      for (const encoding of ['br', 'gzip'] as const) {
        const answer = await sdk(site.siteKey, { ...visit, encoding });
        expect(answer.headers.etag).toBe([...(etags.get(encoding) as Set<string>)][0]);
      }
    }
    const again = await metrics();
    expect(again.compressions('br')).toBe(walked.compressions('br'));
    expect(again.compressions('gzip')).toBe(walked.compressions('gzip'));

    // Another config (Germany's answer names Germany): compressed, once per encoding.
    await sdk(site.siteKey, { country: 'DE', encoding: 'br' });
    await sdk(site.siteKey, { country: 'DE', encoding: 'br' });
    expect((await metrics()).compressions('br')).toBe(again.compressions('br') + 1);
  });

  it('keeps its bytes under SDK_CACHE_MB across two sites, dropping the least recently used', async () => {
    nextMinute();
    const sites = [await createReadySite(t, tenant.testKey), await createReadySite(t, tenant.testKey)];
    const regions = subdivisions('US').slice(0, 28);
    const start = await metrics();
    for (const site of sites) {
      for (const subdivision of regions) {
        for (const encoding of ['br', 'gzip'] as const) {
          const answer = await sdk(site.siteKey, { country: 'US', subdivision, encoding });
          expect(answer.status).toBe(200);
        }
        const now = await metrics();
        expect(now.reportsBytes).toBe(true);
        expect(now.cacheBytes).toBeLessThanOrEqual(BOUND);
      }
    }
    const end = await metrics();
    // The walk held more than the bound: the oldest bodies went, and the newest are held.
    expect(end.evictions).toBeGreaterThan(start.evictions);
    expect(end.cacheBytes).toBeGreaterThan(BOUND / 2);

    // The first region's body was dropped: asked again, it is compressed again, and is right.
    const first = { country: 'US', subdivision: regions[0], encoding: 'br' as const };
    const again = await sdk(sites[0].siteKey, first);
    expect(carriedConfig(decoded(again))).toBe((await config(sites[0].siteKey, first)).text);
    expect((await metrics()).cacheBytes).toBeLessThanOrEqual(BOUND);
  });

  it('answers as before: ETag per config and encoding, 304s, Vary, Cache-Control, Content-Encoding', async () => {
    nextMinute();
    const site = await createReadySite(t, tenant.testKey);
    const visit = { country: 'US', subdivision: 'CA' };
    const { text, etag: configEtag } = await config(site.siteKey, visit);
    const plain = await sdk(site.siteKey, visit);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers.etag).toBe(expectedEtag(configEtag));
    expect(carriedConfig(plain.body.toString('utf8'))).toBe(text);
    expect(plain.body.toString('utf8').endsWith(sdkBundle().source)).toBe(true);
    for (const encoding of ['br', 'gzip'] as const) {
      const answer = await sdk(site.siteKey, { ...visit, encoding });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers.etag).toBe(expectedEtag(configEtag, encoding));
      expect(answer.headers.vary).toBe('Accept-Encoding, X-Geo-Country, X-Geo-Subdivision');
      expect(answer.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
      expect(decoded(answer)).toBe(plain.body.toString('utf8'));
      const held = await sdk(site.siteKey, { ...visit, encoding, ifNoneMatch: answer.headers.etag });
      expect(held.status).toBe(304);
      expect(held.headers.etag).toBe(answer.headers.etag);
      expect(held.headers.vary).toBe('Accept-Encoding, X-Geo-Country, X-Geo-Subdivision');
    }
    // Another representation's ETag is not this one's.
    const other = await sdk(site.siteKey, {
      ...visit,
      encoding: 'br',
      ifNoneMatch: expectedEtag(configEtag),
    });
    expect(other.status).toBe(200);
    const held = await sdk(site.siteKey, { ...visit, ifNoneMatch: expectedEtag(configEtag) });
    expect(held.status).toBe(304);

    // A revalidation of a body this process does not hold (another replica's, or one it dropped)
    // is answered from the ETag alone: nothing is compressed for a 304.
    const elsewhere = { country: 'US', subdivision: 'NY' };
    const before = await metrics();
    const revalidated = await sdk(site.siteKey, {
      ...elsewhere,
      encoding: 'br',
      ifNoneMatch: expectedEtag((await config(site.siteKey, elsewhere)).etag, 'br'),
    });
    expect(revalidated.status).toBe(304);
    expect((await metrics()).compressions('br')).toBe(before.compressions('br'));
  });

  it('past its budget, brotli is compressed fast (its own ETag, the same script) and later upgraded', async () => {
    nextMinute();
    const site = await createReadySite(t, tenant.testKey);
    const before = await metrics();
    const regions = subdivisions('FR').slice(0, 62);
    for (const subdivision of regions) {
      const answer = await sdk(site.siteKey, { country: 'FR', subdivision, encoding: 'br' });
      expect(answer.status).toBe(200);
    }
    const walked = await metrics();
    expect(walked.compressions('br', 'best') - before.compressions('br', 'best')).toBe(60);
    expect(walked.compressions('br', 'fast') - before.compressions('br', 'fast')).toBe(2);

    const visit = { country: 'FR', subdivision: regions[61] };
    const { text, etag: configEtag } = await config(site.siteKey, visit);
    const fast = await sdk(site.siteKey, { ...visit, encoding: 'br' });
    const fastEtag = `${expectedEtag(configEtag, 'br').slice(0, -1)}-fast"`;
    expect(fast.headers.etag).toBe(fastEtag);
    expect(fast.headers['content-encoding']).toBe('br');
    expect(carriedConfig(decoded(fast))).toBe(text);
    expect(decoded(fast)).toBe((await sdk(site.siteKey, visit)).body.toString('utf8'));
    // Either brotli body is the script: a browser holding one gets a 304.
    expect((await sdk(site.siteKey, { ...visit, encoding: 'br', ifNoneMatch: fastEtag })).status).toBe(304);
    const bestEtag = expectedEtag(configEtag, 'br');
    expect((await sdk(site.siteKey, { ...visit, encoding: 'br', ifNoneMatch: bestEtag })).status).toBe(304);

    // A second later one best compression is allowed again: the fast body asked for again is
    // upgraded in the background, and then sent to the browser that held the fast one.
    t.clock.advance(1_000);
    expect((await sdk(site.siteKey, { ...visit, encoding: 'br' })).headers.etag).toBe(fastEtag);
    for (let i = 0; i < 200; i++) {
      if ((await metrics()).compressions('br', 'best') > walked.compressions('br', 'best')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const upgraded = await sdk(site.siteKey, { ...visit, encoding: 'br', ifNoneMatch: fastEtag });
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers.etag).toBe(bestEtag);
    expect(decoded(upgraded)).toBe(decoded(fast));
    expect(upgraded.body.length).toBeLessThan(fast.body.length);
  });
});
