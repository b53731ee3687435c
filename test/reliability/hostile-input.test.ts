import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * Hostile input over the public and authenticated routes: whatever arrives, the answer is a 4xx
 * (or a 2xx for harmless input), never a 5xx, and the process keeps serving.
 */
describe('hostile input', () => {
  let t: TestApp;
  let tenant: Tenant;
  let site: ReadySite;
  let prefs: string;
  const statuses: Array<{ what: string; status: number }> = [];

  beforeAll(async () => {
    t = await startTestApp({ env: SITES_TEST_ENV });
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.liveKey);
    prefs = `/v1/public/sites/${site.siteKey}/preferences`;
  });
  afterAll(async () => {
    await t?.close();
  });

  const raw = (what: string, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
    t.http
      .request('POST', path, {
        rawBody: body,
        headers: { 'content-type': 'application/json', origin: 'https://shop.example.com', ...headers },
      })
      .then((res) => {
        statuses.push({ what, status: res.status });
        return res;
      });

  it('malformed, oversized, deep, wide and oddly encoded bodies on POST …/preferences are 4xx', async () => {
    const valid = preferencesBody(site);
    const cases: Array<[string, string | Uint8Array]> = [
      ['malformed JSON', '{"subjectId": '],
      ['not an object', '[1,2,3]'],
      ['oversized (2 MB)', JSON.stringify({ ...valid, pad: 'x'.repeat(2 * 1024 * 1024) })],
      ['deeply nested (100 000)', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
      ['deeply nested objects', `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`],
      [
        '10 000 decisions',
        JSON.stringify({
          ...valid,
          decisions: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, 'granted'])),
        }),
      ],
      ['huge subjectId', JSON.stringify({ ...valid, subjectId: 'x'.repeat(500_000) })],
      ['NUL in subjectId', JSON.stringify({ ...valid, subjectId: 'abc\u0000defghij' })],
      [
        'lone surrogate',
        `{"subjectId":"abcdefgh\\ud800","decisions":{},"configVersion":${site.configVersion}}`,
      ],
      [
        'invalid UTF-8',
        new Uint8Array([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
      ],
      [
        '__proto__ key',
        `{"__proto__":{"polluted":true},"subjectId":"abcdefghij","decisions":{},"configVersion":1}`,
      ],
      [
        'constructor key',
        JSON.stringify({ ...valid, decisions: { constructor: 'granted', __proto__: 'denied' } }),
      ],
      [
        'wrong types',
        JSON.stringify({ subjectId: 12345678, decisions: 'all', configVersion: '1', gpc: 'yes' }),
      ],
      ['absurd configVersion', JSON.stringify({ ...valid, configVersion: 1e308 })],
      ['negative configVersion', JSON.stringify({ ...valid, configVersion: -1 })],
    ];
    for (const [what, body] of cases) {
      const res = await raw(what, prefs, body);
      // A lone surrogate is still a string of the right length: recording it is acceptable, failing is not.
      if (what === 'lone surrogate') {
        expect(res.status, res.text.slice(0, 200)).toBeLessThan(500);
        continue;
      }
      expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('path traversal in ids and absurd query values on authenticated routes are 4xx', async () => {
    const key = tenant.liveKey;
    const paths = [
      '/v1/evidence/..%2F..%2Fetc%2Fpasswd',
      '/v1/evidence/%00',
      '/v1/evidence/evt_%F0%9F%98%80',
      `/v1/evidence/${'a'.repeat(10_000)}`,
      '/v1/channels/..%2Fchannels',
      '/v1/exports/..%5C..%5Cwindows',
      '/v1/evidence?limit=1e309',
      '/v1/evidence?limit=-1',
      '/v1/evidence?limit=99999999999999999999999',
      `/v1/evidence?cursor=${'A'.repeat(20_000)}`,
      '/v1/evidence?from=9999-99-99T99:99:99Z',
      '/v1/evidence?from=0000-01-01T00:00:00Z',
      '/v1/evidence?decision=granted',
      `/v1/evidence?subjectId=${'%00'.repeat(100)}`,
      '/v1/evidence?purpose[]=a&purpose[]=b',
      '/v1/channels?limit=NaN',
      '/v1/exports?cursor=%ff%fe',
      `/v1/public/sites/${'s'.repeat(5000)}/config`,
      '/v1/public/sites/site_live_..%2F..%2F/config',
    ];
    for (const path of paths) {
      const res = await t.http.get(path, { key });
      statuses.push({ what: path.slice(0, 80), status: res.status });
      expect(res.status, `${path.slice(0, 80)}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path.slice(0, 80)}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
    const bodies: Array<[string, unknown]> = [
      ['/v1/channels', { name: 'x'.repeat(100_000), privacyPolicy: { url: 'javascript:alert(1)' } }],
      ['/v1/channels', { name: ['a'], privacyPolicy: null }],
      ['/v1/exports', { format: 'xml', from: 'yesterday', channelId: '../../etc' }],
      ['/v1/api-keys', { name: 'k', scopes: ['*', '__proto__'] }],
    ];
    for (const [path, body] of bodies) {
      const res = await t.http.post(path, { key, body });
      statuses.push({ what: `POST ${path}`, status: res.status });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
  });

  it('huge headers are refused before the app (431) and the server keeps serving', async () => {
    const res = await fetch(`${t.baseUrl}/healthz`, { headers: { 'x-big': 'x'.repeat(64 * 1024) } }).catch(
      () => null,
    );
    if (res) expect(res.status).toBe(431);
    expect((await t.http.get('/healthz')).status).toBe(200);
  });

  it('slow partial bodies (slowloris) do not stop other requests from being served', async () => {
    const port = Number(new URL(t.baseUrl).port);
    const sockets = Array.from({ length: 20 }, () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST ${prefs} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nOrigin: https://shop.example.com\r\nContent-Length: 100000\r\n\r\n{"subjectId":`,
      );
      return socket;
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 5; i++) {
        const res = await postPreferences(t, site.siteKey, preferencesBody(site));
        expect(res.status).toBe(201);
      }
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('never answered 5xx and is still up', async () => {
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await postPreferences(t, site.siteKey, preferencesBody(site))).status).toBe(201);
  });
});
