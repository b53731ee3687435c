import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/** Media types, every validation failure, impossible dates, decimal limits. */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

const NON_JSON: [string, string][] = [
  ['text/plain', '{"name":"x","scopes":["channels:read"]}'],
  ['text/plain; charset=utf-8', '{"name":"x"}'],
  ['application/x-www-form-urlencoded', 'name=x&scopes=channels:read'],
  [
    'multipart/form-data; boundary=b',
    '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n',
  ],
];

describe('a JSON route given a non-JSON body is 415 unsupported_media_type', () => {
  for (const [type, rawBody] of NON_JSON) {
    it(`authenticated route: ${type}`, async () => {
      const res = await t.http.post('/v1/channels', {
        key: tenant.testKey,
        rawBody,
        headers: { 'content-type': type },
      });
      expectProblemShape(res, 415, 'unsupported_media_type');
    });

    it(`public preferences: ${type} (the SDK sends application/json after a preflight)`, async () => {
      const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences`, {
        rawBody,
        headers: { 'content-type': type, origin: SITE_ORIGIN },
      });
      expectProblemShape(res, 415, 'unsupported_media_type');
    });
  }

  it('nothing was created by the refused bodies', async () => {
    const res = await t.http.get('/v1/channels?limit=100', { key: tenant.testKey });
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(['Shop']);
  });
});

describe('validation errors list every failure, bounded', () => {
  it('a body with three problems gets three errors', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { description: 5, defaultLanguage: 7, colour: 'red' },
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { path: '/name', message: 'is required' },
        { path: '/colour', message: 'is not a known field' },
        expect.objectContaining({ path: '/description' }),
        expect.objectContaining({ path: '/defaultLanguage' }),
      ]),
    );
  });

  it('at most 20 errors, however many members are wrong', async () => {
    const body: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) body[`unknown${i}`] = i;
    const res = await t.http.post('/v1/channels', { key: tenant.testKey, body });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors).toHaveLength(20);
    for (const error of problem.errors) expect(typeof error.path).toBe('string');
  });

  it('query failures are all listed too', async () => {
    const res = await t.http.get('/v1/evidence?limit=0&from=yesterday&decision=granted', {
      key: tenant.testKey,
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain('query:/limit');
  });
});

describe('impossible calendar dates are 422 everywhere', () => {
  const IMPOSSIBLE = [
    '2026-02-30T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
  ];

  for (const date of IMPOSSIBLE) {
    it(`${date}: evidence, audit-log filters, export from/to, key expiresAt`, async () => {
      const q = encodeURIComponent(date);
      for (const path of [
        `/v1/evidence?from=${q}`,
        `/v1/evidence?to=${q}`,
        `/v1/audit-logs?from=${q}`,
        `/v1/audit-logs?to=${q}`,
      ]) {
        expectProblemShape(await t.http.get(path, { key: tenant.testKey }), 422, 'validation_failed');
      }
      for (const body of [{ from: date }, { to: date }]) {
        const res = await t.http.post('/v1/exports', { key: tenant.testKey, body });
        expectProblemShape(res, 422, 'validation_failed');
      }
      const key = await t.http.post('/v1/api-keys', {
        key: tenant.testKey,
        body: { name: 'k', scopes: ['channels:read'], expiresAt: date.replace('2026', '2099') },
      });
      expectProblemShape(key, 422, 'validation_failed');
    });
  }

  it('a real leap day is accepted', async () => {
    const res = await t.http.get(`/v1/evidence?from=${encodeURIComponent('2028-02-29T00:00:00Z')}`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe('limit is a decimal integer 1–100', () => {
  for (const limit of ['0x10', '1e1', '%2010', '%2B10', '10.0', '0b1', '0', '101', '-1', '']) {
    it(`limit=${limit} is 422`, async () => {
      for (const path of ['/v1/channels', '/v1/evidence', '/v1/audit-logs', '/v1/api-keys']) {
        const res = await t.http.get(`${path}?limit=${limit}`, { key: tenant.testKey });
        const problem = expectProblemShape(res, 422, 'validation_failed');
        expect(problem.errors.map((e: { path: string }) => e.path)).toContain('query:/limit');
      }
    });
  }

  it('limit=10 and limit=010 are fine', async () => {
    for (const limit of ['10', '010', '100', '1']) {
      const res = await t.http.get(`/v1/channels?limit=${limit}`, { key: tenant.testKey });
      expect(res.status, res.text).toBe(200);
    }
  });
});
