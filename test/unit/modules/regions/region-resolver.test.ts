import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config.ts';
import {
  createRegionResolver,
  declaredRegionError,
  type RegionResolver,
} from '../../../../src/modules/regions/regions.service.ts';
import { writeMmdb } from '../../../helpers/mmdb-writer.ts';

/** A City-style database: France, California, a subdivision-less US range, Germany over IPv6. */
const CITY = writeMmdb({
  databaseType: 'GeoLite2-City',
  networks: [
    { network: '192.0.2.0/24', data: { country: { iso_code: 'FR' }, subdivisions: [{ iso_code: 'IDF' }] } },
    { network: '198.51.100.0/25', data: { country: { iso_code: 'US' }, subdivisions: [{ iso_code: 'CA' }] } },
    { network: '198.51.100.128/25', data: { country: { iso_code: 'US' } } },
    { network: '203.0.113.0/26', data: { continent: { code: 'AS' } } },
    { network: '203.0.113.64/26', data: { country: { iso_code: 'XK' }, subdivisions: [{ iso_code: '99' }] } },
    { network: '2001:db8::/32', data: { country: { iso_code: 'DE' }, subdivisions: [{ iso_code: 'BY' }] } },
  ],
});

let dir: string;
const resolvers: RegionResolver[] = [];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'regions-'));
});
afterAll(() => {
  for (const resolver of resolvers) resolver.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function dbFile(name: string, bytes: Buffer | string = CITY): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

/** A resolver from the real settings, read from an environment as at start. */
function resolverFor(env: Record<string, string>, watchIntervalMs: number | false = false) {
  const resolver = createRegionResolver(loadConfig(env), { watchIntervalMs });
  resolvers.push(resolver);
  return resolver;
}

const CLOUDFRONT = {
  GEO_COUNTRY_HEADER: 'CloudFront-Viewer-Country',
  GEO_SUBDIVISION_HEADER: 'CloudFront-Viewer-Country-Region',
};
const visitor = (request: {
  environment?: 'test' | 'live';
  declared?: string;
  headers?: Record<string, string>;
  ip?: string;
}) => ({ environment: request.environment ?? 'live', headers: {}, ip: '127.0.0.1', ...request });

describe('region resolution: declared, then headers, then GeoIP, then unknown', () => {
  it('declared: the region query on a test channel wins over headers and GeoIP', () => {
    const resolver = resolverFor({ ...CLOUDFRONT, GEOIP_DATABASE: dbFile('declared.mmdb') });
    const request = visitor({
      environment: 'test',
      declared: 'US-CA',
      headers: { 'cloudfront-viewer-country': 'FR' },
      ip: '192.0.2.1',
    });
    expect(resolver.resolve(request)).toEqual({ code: 'US-CA', source: 'declared' });
  });

  it('declared: ignored on a live channel', () => {
    const resolver = resolverFor({ GEOIP_DATABASE: dbFile('declared-live.mmdb') });
    expect(resolver.resolve(visitor({ environment: 'live', declared: 'US-CA', ip: '192.0.2.1' }))).toEqual({
      code: 'FR-IDF',
      source: 'geoip',
    });
    expect(resolverFor({}).resolve(visitor({ environment: 'live', declared: 'FR' }))).toEqual({
      code: null,
      source: 'unknown',
    });
  });

  it('declared: only a country or subdivision (groups and * are not a place)', () => {
    expect(declaredRegionError('FR')).toBeNull();
    expect(declaredRegionError('US-CA')).toBeNull();
    for (const bad of ['EEA', '*', 'fr', 'ZZ', 'US-ZZ', '']) {
      expect(declaredRegionError(bad)).toMatchObject({ path: 'query:/region' });
    }
    // One that slips through is not trusted.
    expect(resolverFor({}).resolve(visitor({ environment: 'test', declared: 'EEA' })).source).toBe('unknown');
  });

  it.each<[string, Record<string, string>, string | null]>([
    ['country alone', { 'cloudfront-viewer-country': 'FR' }, 'FR'],
    [
      'country and subdivision part (CloudFront)',
      { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'CA' },
      'US-CA',
    ],
    [
      'country and whole subdivision code',
      { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'US-CA' },
      'US-CA',
    ],
    ['lower case', { 'cloudfront-viewer-country': 'us', 'cloudfront-viewer-country-region': 'ca' }, 'US-CA'],
    [
      'subdivision of another country: the country stands',
      { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'CA-QC' },
      'US',
    ],
    [
      'unknown subdivision: the country stands',
      { 'cloudfront-viewer-country': 'US', 'cloudfront-viewer-country-region': 'ZZ' },
      'US',
    ],
  ])('header: %s', (_name, headers, code) => {
    const resolver = resolverFor(CLOUDFRONT);
    expect(resolver.resolve(visitor({ headers }))).toEqual({ code, source: 'header' });
    // Twice: the memoized answer is the same.
    expect(resolver.resolve(visitor({ headers }))).toEqual({ code, source: 'header' });
  });

  it.each<[string, Record<string, string>]>([
    ['Cloudflare’s unknown XX', { 'cf-ipcountry': 'XX' }],
    ['Cloudflare’s Tor T1', { 'cf-ipcountry': 'T1' }],
    ['two values', { 'cf-ipcountry': 'FR, US' }],
    ['absent', {}],
  ])('header: invalid or absent (%s) falls through to GeoIP', (_name, headers) => {
    const resolver = resolverFor({
      GEO_COUNTRY_HEADER: 'CF-IPCountry',
      GEOIP_DATABASE: dbFile('fallthrough.mmdb'),
    });
    expect(resolver.resolve(visitor({ headers, ip: '198.51.100.200' }))).toEqual({
      code: 'US',
      source: 'geoip',
    });
  });

  it('header: a spoofed geo header is ignored when the setting is off', () => {
    const spoofed = {
      'cloudfront-viewer-country': 'US',
      'cloudfront-viewer-country-region': 'CA',
      'cf-ipcountry': 'US',
    };
    expect(resolverFor({}).resolve(visitor({ headers: spoofed }))).toEqual({ code: null, source: 'unknown' });
    const withGeoIp = resolverFor({ GEOIP_DATABASE: dbFile('spoof.mmdb') });
    expect(withGeoIp.resolve(visitor({ headers: spoofed, ip: '192.0.2.9' }))).toEqual({
      code: 'FR-IDF',
      source: 'geoip',
    });
    // A header other than the one named is not trusted either.
    const cloudflare = resolverFor({ GEO_COUNTRY_HEADER: 'CF-IPCountry' });
    expect(cloudflare.resolve(visitor({ headers: { 'cloudfront-viewer-country': 'US' } })).source).toBe(
      'unknown',
    );
  });

  it('header: Vary names the trusted headers', () => {
    expect(resolverFor(CLOUDFRONT).varyHeaders).toEqual([
      'CloudFront-Viewer-Country',
      'CloudFront-Viewer-Country-Region',
    ]);
    expect(resolverFor({}).varyHeaders).toEqual([]);
  });

  it.each<[string, string | undefined, string | null]>([
    ['a Country-level range', '198.51.100.130', 'US'],
    ['a City-level range: the subdivision', '198.51.100.5', 'US-CA'],
    ['IPv4-mapped IPv6, as a dual-stack socket reports it', '::ffff:198.51.100.5', 'US-CA'],
    ['IPv6', '2001:db8:1::7', 'DE-BY'],
    ['an address the database does not have', '8.8.8.8', null],
    ['a record without a country', '203.0.113.1', null],
    ['an unknown subdivision: the country stands', '203.0.113.70', 'XK'],
    ['loopback', '127.0.0.1', null],
    ['no address', undefined, null],
    ['not an address', 'not-an-ip', null],
  ])('geoip: %s', (_name, ip, code) => {
    const resolver = resolverFor({ GEOIP_DATABASE: dbFile('lookup.mmdb') });
    expect(resolver.resolve(visitor({ ip }))).toEqual(
      code === null ? { code: null, source: 'unknown' } : { code, source: 'geoip' },
    );
  });

  it('geoip: a Country database and one of another vendor’s shape (country_code)', () => {
    const compatible = writeMmdb({
      databaseType: 'dbip-country-lite',
      networks: [{ network: '192.0.2.0/24', data: { country_code: 'JP' } }],
    });
    const resolver = resolverFor({ GEOIP_DATABASE: dbFile('compatible.mmdb', compatible) });
    expect(resolver.resolve(visitor({ ip: '192.0.2.1' }))).toEqual({ code: 'JP', source: 'geoip' });
  });

  it('unknown: nothing configured', () => {
    expect(resolverFor({}).resolve(visitor({ ip: '192.0.2.1' }))).toEqual({ code: null, source: 'unknown' });
  });
});

describe('GEOIP_DATABASE reload', () => {
  const FR_ONLY = writeMmdb({
    databaseType: 'GeoLite2-Country',
    networks: [{ network: '192.0.2.0/24', data: { country: { iso_code: 'FR' } } }],
  });
  const BE_NOW = writeMmdb({
    databaseType: 'GeoLite2-Country',
    networks: [{ network: '192.0.2.0/24', data: { country: { iso_code: 'BE' } } }],
  });

  /** Waits for `check` to hold, polling: the watcher polls the file's stat. */
  async function eventually(check: () => boolean, ms = 5_000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('replacing the file (write then rename, as geoipupdate does) is picked up', async () => {
    const file = dbFile('reload.mmdb', FR_ONLY);
    const reloads: string[] = [];
    const resolver = createRegionResolver(loadConfig({ GEOIP_DATABASE: file }), {
      watchIntervalMs: 25,
      onReload: ({ databaseType }) => reloads.push(databaseType),
    });
    resolvers.push(resolver);
    const lookup = () => resolver.resolve(visitor({ ip: '192.0.2.1' })).code;
    expect(lookup()).toBe('FR');
    fs.writeFileSync(`${file}.tmp`, BE_NOW);
    fs.renameSync(`${file}.tmp`, file);
    await eventually(() => lookup() === 'BE');
    expect(reloads).toEqual(['GeoLite2-Country']);
  });

  it('a replacement that is not a database is reported and the previous data kept', async () => {
    const file = dbFile('corrupt.mmdb', FR_ONLY);
    const errors: Error[] = [];
    const resolver = createRegionResolver(loadConfig({ GEOIP_DATABASE: file }), {
      watchIntervalMs: 25,
      onReloadError: (error) => errors.push(error),
    });
    resolvers.push(resolver);
    fs.writeFileSync(`${file}.tmp`, FR_ONLY.subarray(0, 40));
    fs.renameSync(`${file}.tmp`, file);
    await eventually(() => errors.length > 0);
    expect(errors[0].message).toMatch(/^GEOIP_DATABASE reload failed/);
    expect(resolver.resolve(visitor({ ip: '192.0.2.1' }))).toEqual({ code: 'FR', source: 'geoip' });
    // A good file afterwards is taken.
    fs.writeFileSync(`${file}.tmp`, BE_NOW);
    fs.renameSync(`${file}.tmp`, file);
    await eventually(() => resolver.resolve(visitor({ ip: '192.0.2.1' })).code === 'BE');
  });

  it('after close, changes are no longer read', async () => {
    const file = dbFile('closed.mmdb', FR_ONLY);
    const resolver = createRegionResolver(loadConfig({ GEOIP_DATABASE: file }), { watchIntervalMs: 25 });
    resolver.close();
    fs.writeFileSync(`${file}.tmp`, BE_NOW);
    fs.renameSync(`${file}.tmp`, file);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resolver.resolve(visitor({ ip: '192.0.2.1' })).code).toBe('FR');
  });
});

describe('GEOIP_DATABASE at start', () => {
  it('a file that passes the settings check but does not parse stops the start (ConfigError)', () => {
    // The marker is there (the settings check passes) but no database precedes it.
    const file = dbFile('marker-only.mmdb', Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'));
    const config = loadConfig({ GEOIP_DATABASE: file });
    expect(() => createRegionResolver(config)).toThrow(ConfigError);
    expect(() => createRegionResolver(config)).toThrow(
      /^GEOIP_DATABASE ".*marker-only\.mmdb" is not a MaxMind DB file/,
    );
  });
});

// store-independent: region resolution, pure functions
