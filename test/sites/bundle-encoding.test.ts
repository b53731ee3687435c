import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkBundle } from '../../src/modules/sites/sdk-bundle.ts';
import { negotiate } from '../../src/platform/http/bundle-encodings.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The SDK's bundles on the wire: brotli or gzip as the browser accepts, the same
 * script once decompressed, `Vary: Accept-Encoding` so no cache hands one encoding to a browser that
 * asked for another, and an ETag per representation. Raw HTTP: fetch would decompress for us.
 */
let t: TestApp;
let siteKey: string;
beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  const tenant = await t.tenant();
  siteKey = (await createReadySite(t, tenant.testKey)).siteKey;
});
afterAll(() => t.close());

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}
function get(file: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.baseUrl}/v1/public/sites/${siteKey}/${file}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
  });
}

describe('SDK bundles on the wire', () => {
  it('sdk.js, gpp.js and tcf.js: brotli, else gzip, else as they are; one script whatever the encoding', async () => {
    const sizes: Record<string, Record<string, number>> = {};
    for (const file of ['sdk.js', 'gpp.js', 'tcf.js']) {
      const plain = await get(file, {});
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      const br = await get(file, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toBe('Accept-Encoding');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gzip = await get(file, { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      // Each representation has its own strong ETag, and a 304 for its own.
      const etags = new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]);
      expect(etags.size).toBe(3);
      const again = await get(file, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string });
      expect(again.status).toBe(304);
      expect(again.headers.vary).toBe('Accept-Encoding');
      // Another encoding's ETag is not this one's: the whole bundle again.
      const other = await get(file, {
        'accept-encoding': 'br',
        'if-none-match': gzip.headers.etag as string,
      });
      expect(other.status).toBe(200);
      sizes[file] = { identity: plain.body.length, gzip: gzip.body.length, br: br.body.length };
      if (file === 'sdk.js') {
        expect(br.body.length).toBeLessThan(gzip.body.length);
        expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
      }
    }
    console.log(`bytes on the wire: ${JSON.stringify(sizes)}`);
  });

  it('honours q-values and *, and sends the bundle as it is to a browser that accepts neither', () => {
    expect(negotiate('br;q=0, gzip')).toBe('gzip');
    expect(negotiate('gzip;q=0, br;q=0.5')).toBe('br');
    expect(negotiate('*')).toBe('br');
    expect(negotiate('*;q=0, gzip')).toBe('gzip');
    expect(negotiate('identity')).toBeNull();
    expect(negotiate('deflate')).toBeNull();
    expect(negotiate('')).toBeNull();
    expect(negotiate(undefined)).toBeNull();
  });

  it('serves what the build precompressed (the .br and .gz beside the bundle), checked against it', () => {
    const bundle = sdkBundle();
    expect(brotliDecompressSync(bundle.encoded.br.body).toString('utf8')).toBe(bundle.source);
    expect(gunzipSync(bundle.encoded.gzip.body).toString('utf8')).toBe(bundle.source);
  });
});
