import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/platform/http/errors.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { TestResponse } from '../helpers/http.ts';
import {
  createReadySite,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';

/**
 * Bad input never gives a 5xx on the public endpoints: random bodies, Origin and content-type
 * headers, and site keys (real, archived-looking, random, hostile). Every 4xx is a known problem.
 */
let t: TestApp;
let site: ReadySite;
const RUNS = { numRuns: 120 };

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  const tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

function expectSafe(res: TestResponse, label: string) {
  const context = `${label} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, context).toBeLessThan(500);
  expect(res.headers.get('x-request-id'), context).toBeTruthy();
  if (res.status < 400) return;
  expect(res.headers.get('content-type') ?? '', context).toMatch(/^application\/problem\+json/);
  const known = ERROR_CODES[res.body?.code as keyof typeof ERROR_CODES];
  expect(known?.status, context).toBe(res.status);
}

const weird = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '\u0000', '__proto__', 'constructor', '\uD800', 'x'.repeat(300), '../../etc', '%00'),
);
const json = fc.jsonValue({ maxDepth: 3 });
const decisions = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.constantFrom('necessary', 'analytics', 'marketing'), weird),
    fc.oneof(fc.constantFrom('granted', 'denied'), json),
  ),
  json,
);
const body = fc.oneof(
  fc.record(
    {
      subjectId: fc.oneof(fc.string({ minLength: 8, maxLength: 40 }), weird, json),
      decisions,
      configVersion: fc.oneof(
        fc.integer({ min: -2, max: 5 }),
        fc.constantFrom(2 ** 31, 2 ** 53, 1.5, '1'),
        json,
      ),
      source: fc.oneof(fc.constantFrom('banner', 'api', 'gpc', 'preference_center'), weird),
      language: fc.oneof(fc.constantFrom('en', 'pt-BR', 'zh-Hant-TW'), weird),
      gpc: fc.oneof(fc.boolean(), json),
      extra: json,
    },
    { requiredKeys: [] },
  ),
  json,
);
const rawBody = fc.oneof(
  body.map((b) => JSON.stringify(b)),
  fc.constantFrom('{', '{"subjectId":', '[]', 'null', '1e400', '{"configVersion":1e400}', ''),
  weird,
);
const origin = fc.oneof(
  fc.constantFrom(
    SITE_ORIGIN,
    WILDCARD_MATCH,
    'null',
    'https://evil.example',
    'http://shop.example.com',
    'https://*.example.org',
  ),
  weird.filter((s) => /^[\x21-\x7e ]*$/.test(s)),
  fc.constant(undefined),
);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/problem+json',
    'application/json; charset=latin1',
  ),
  fc.constant(undefined),
);
const siteKey = fc.oneof(
  fc.constant('__REAL__'),
  fc.constantFrom(
    'site_test_x',
    'site_live_',
    'site_test_' + 'a'.repeat(90),
    'SITE_TEST_ABC',
    'site_test_abc%00',
    '%E2%82%AC',
    '..',
  ),
  fc.stringMatching(/^[A-Za-z0-9_.~-]{1,60}$/),
);

const realKey = (key: string) => (key === '__REAL__' ? site.siteKey : key);
const headersOf = (o: string | undefined, ct: string | undefined, extra: Record<string, string> = {}) => {
  const headers: Record<string, string> = { ...extra };
  if (o !== undefined) headers.origin = o;
  if (ct !== undefined) headers['content-type'] = ct;
  return headers;
};

describe('public endpoints under random input', () => {
  it('POST …/preferences never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        siteKey,
        rawBody,
        origin,
        contentType,
        fc.option(weird, { nil: undefined }),
        async (key, raw, o, ct, idem) => {
          const printableIdem: Record<string, string> =
            idem !== undefined && /^[\x20-\x7e]*$/.test(idem) ? { 'idempotency-key': idem } : {};
          const res = await t.http.post(`/v1/public/sites/${realKey(key)}/preferences`, {
            rawBody: raw,
            headers: headersOf(o, ct, printableIdem),
          });
          expectSafe(res, `POST ${key} ${o} ${ct} ${raw.slice(0, 100)}`);
        },
      ),
      RUNS,
    );
  });

  it('GET snippet/config/sdk.js and OPTIONS never answer 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        siteKey,
        fc.constantFrom('snippet', 'config', 'sdk.js', 'preferences'),
        origin,
        weird,
        async (key, part, o, inm) => {
          const method = part === 'preferences' ? 'OPTIONS' : 'GET';
          const extra: Record<string, string> = /^[\x20-\x7e]*$/.test(inm)
            ? { 'if-none-match': inm, 'access-control-request-method': inm }
            : {};
          const res = await t.http.request(method, `/v1/public/sites/${realKey(key)}/${part}`, {
            headers: headersOf(o, undefined, extra),
          });
          expectSafe(res, `${method} ${key}/${part} ${o}`);
        },
      ),
      RUNS,
    );
  });
});
