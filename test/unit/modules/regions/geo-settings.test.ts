import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/config.ts';
import { writeMmdb } from '../../../helpers/mmdb-writer.ts';
import { runCli } from '../../../helpers/processes.ts';

/** The region settings (docs/regions.md) as src/config.ts reads them: bad ones stop the start. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geo-settings-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const DATABASE = writeMmdb({
  databaseType: 'GeoLite2-Country',
  networks: [{ network: '192.0.2.0/24', data: { country: { iso_code: 'FR' } } }],
});

function file(name: string, bytes: Buffer | string): string {
  const at = path.join(dir, name);
  fs.writeFileSync(at, bytes);
  return at;
}

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split('\n');
  }
  return [];
}

describe('region settings', () => {
  it('are off by default', () => {
    expect(loadConfig({})).toMatchObject({
      geoCountryHeader: null,
      geoSubdivisionHeader: null,
      geoipDatabase: null,
    });
  });

  it('read header names and an absolute database path', () => {
    const at = file('country.mmdb', DATABASE);
    const relative = path.relative(process.cwd(), at);
    expect(
      loadConfig({
        GEO_COUNTRY_HEADER: 'CloudFront-Viewer-Country',
        GEO_SUBDIVISION_HEADER: 'CloudFront-Viewer-Country-Region',
        GEOIP_DATABASE: relative,
      }),
    ).toMatchObject({
      geoCountryHeader: 'CloudFront-Viewer-Country',
      geoSubdivisionHeader: 'CloudFront-Viewer-Country-Region',
      geoipDatabase: at,
    });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'a header name with a space',
      { GEO_COUNTRY_HEADER: 'Viewer Country' },
      /^GEO_COUNTRY_HEADER must be an HTTP header name/,
    ],
    [
      'a header name with a colon',
      { GEO_COUNTRY_HEADER: 'X-Country:' },
      /^GEO_COUNTRY_HEADER must be an HTTP header name/,
    ],
    [
      'a subdivision header without a country header',
      { GEO_SUBDIVISION_HEADER: 'CloudFront-Viewer-Country-Region' },
      /^GEO_SUBDIVISION_HEADER needs GEO_COUNTRY_HEADER/,
    ],
    [
      'a missing database',
      { GEOIP_DATABASE: '/nonexistent/GeoLite2-City.mmdb' },
      /^GEOIP_DATABASE must be a readable \.mmdb file, got ".*" \(ENOENT\)$/,
    ],
    [
      'a directory',
      { GEOIP_DATABASE: os.tmpdir() },
      /^GEOIP_DATABASE must be a readable \.mmdb file, got ".*" \(EISDIR\)$/,
    ],
    [
      'a text file',
      { GEOIP_DATABASE: file('text.mmdb', 'not a database\n') },
      /^GEOIP_DATABASE ".*" is not a MaxMind DB \(\.mmdb\) file$/,
    ],
    ['an empty file', { GEOIP_DATABASE: file('empty.mmdb', '') }, /is not a MaxMind DB \(\.mmdb\) file$/],
    [
      'the download left compressed',
      { GEOIP_DATABASE: file('country.mmdb.gz', zlib.gzipSync(DATABASE)) },
      /^GEOIP_DATABASE ".*" is gzip-compressed; extract the \.mmdb file$/,
    ],
  ])('%s is one line of the start error', (_name, env, message) => {
    const lines = problems(env);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it('are listed with every other bad setting, one line each', () => {
    const lines = problems({ PORT: 'x', GEO_COUNTRY_HEADER: 'a b', GEOIP_DATABASE: '/nonexistent.mmdb' });
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['PORT', 'GEO_COUNTRY_HEADER', 'GEOIP_DATABASE']);
  });

  it('stop `serve` at start with exit 2 and one line each, before anything opens', async () => {
    const result = await runCli(['serve'], {
      GEO_SUBDIVISION_HEADER: 'CloudFront-Viewer-Country-Region',
      GEOIP_DATABASE: file('start.mmdb.gz', zlib.gzipSync(DATABASE)),
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'consent-service: GEO_SUBDIVISION_HEADER needs GEO_COUNTRY_HEADER to be set too',
      `consent-service: GEOIP_DATABASE "${path.join(dir, 'start.mmdb.gz')}" is gzip-compressed; extract the .mmdb file`,
    ]);
  });
});
