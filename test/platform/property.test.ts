import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/platform/http/errors.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import type { TestResponse } from '../helpers/http.ts';

/**
 * Bad input never gives a 5xx: random bodies, query strings and header values against the API-key
 * and audit endpoints. Every answer is below 500, and every 4xx is a well-formed problem.
 */
let t: TestApp;
let tenant: Tenant;
/** Real key ids to rotate and revoke, so valid-looking bodies reach the service too. */
let keyIds: string[];

const RUNS = { numRuns: 120 };

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  tenant = await t.tenant();
  keyIds = [];
  for (let i = 0; i < 10; i++) keyIds.push((await tenant.key(['channels:read'])).id);
});
afterAll(() => t.close());

function expectSafe(res: TestResponse, label: string) {
  const context = `${label} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, context).toBeLessThan(500);
  expect(res.headers.get('x-request-id'), context).toBeTruthy();
  if (res.status < 400) return;
  expect(res.headers.get('content-type') ?? '', context).toMatch(/^application\/problem\+json/);
  const problem = res.body;
  const known = ERROR_CODES[problem?.code as keyof typeof ERROR_CODES];
  expect(known, context).toBeDefined();
  expect(problem.status, context).toBe(res.status);
  expect(known.status, context).toBe(res.status);
  expect(problem.type, context).toBe(`${t.config.docsUrl}/errors/${problem.code}`);
  for (const field of ['title', 'detail', 'instance', 'requestId']) {
    expect(typeof problem[field], `${context} (${field})`).toBe('string');
  }
  // A replay (the same Idempotency-Key again) repeats the stored body byte for byte, whose requestId
  // is the original request's: the replay names it in Original-Request-Id.
  const replayed = res.headers.get('idempotent-replayed') === 'true';
  expect(problem.requestId, context).toBe(res.headers.get(replayed ? 'original-request-id' : 'x-request-id'));
  if (problem.errors !== undefined) {
    for (const e of problem.errors)
      expect(typeof e.path === 'string' && typeof e.message === 'string').toBe(true);
  }
  expect(res.text, context).not.toMatch(/\bat .+\.ts:\d+|SELECT |INSERT |stack/i);
}

// ---- arbitraries -------------------------------------------------------------------------------

const weirdString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '__proto__', 'constructor', '\uD800', '💥'.repeat(50), 'x'.repeat(300)),
);
const hugeNumberLiteral = fc.constantFrom('1e400', '-1e400', '9'.repeat(400), '1.5e-400', '-0', '1E+308');
const scopeLike = fc.oneof(
  fc.constantFrom('channels:read', 'webhooks:manage', 'api_keys:manage', 'audit:read:limited', 'nope:x'),
  weirdString,
);

/** JSON text: mostly near the real schema (so validation and the service get exercised), some anything. */
const jsonBody = fc.oneof(
  fc
    .record(
      {
        name: fc.oneof(weirdString, fc.integer(), fc.constant(null)),
        scopes: fc.oneof(fc.array(scopeLike, { maxLength: 12 }), weirdString, fc.constant(null)),
        expiresAt: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom('2999-01-01T00:00:00Z', '2000-01-01T00:00:00Z', '2999-02-30T00:00:00Z'),
          weirdString,
          fc.constant(null),
        ),
        graceSeconds: fc.oneof(fc.integer(), fc.double(), fc.integer({ min: 0, max: 604_800 }), weirdString),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.anything().map((v) => JSON.stringify(v) ?? 'undefined'),
  hugeNumberLiteral.map((n) => `{"name":"n","scopes":["channels:read"],"graceSeconds":${n}}`),
  hugeNumberLiteral,
  fc.string({ maxLength: 60 }),
  fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '[', '{}}', '"'),
);

/** encodeURIComponent throws on lone surrogates; send those as the replacement character. */
function safeEncode(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, (c, i) => (isPaired(s, i) ? c : '\uFFFD')));
}

function isPaired(s: string, i: number): boolean {
  const code = s.charCodeAt(i);
  if (code <= 0xdbff) return (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
  return (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
}

const pathId = fc.oneof(
  fc.constantFrom('key_0000000000000000000000', '', '%', '%zz', '%E0%A4%A', '%00', '..', 'x'.repeat(101)),
  weirdString.map(safeEncode),
  fc.nat(9).map((i) => `__real${i}`),
);

function resolveId(id: string): string {
  const match = /^__real(\d)$/.exec(id);
  return match ? keyIds[Number(match[1])] : id;
}

const queryString = fc.oneof(
  fc
    .dictionary(
      fc.oneof(
        fc.constantFrom('limit', 'cursor', 'action', 'actorId', 'targetId', 'from', 'to'),
        fc.string({ maxLength: 8 }),
      ),
      fc.oneof(
        weirdString,
        fc.integer().map(String),
        hugeNumberLiteral,
        fc.constantFrom('2031-01-01T00:00:00Z', '2031-02-30T00:00:00Z', 'eyJ9.x', '1', '100', '101'),
      ),
      { maxKeys: 5 },
    )
    .map((d) => new URLSearchParams(d).toString()),
  // Raw, possibly badly encoded query text: repeated keys, stray % and unicode.
  fc
    .array(
      fc.constantFrom(
        'limit=1',
        'limit=5',
        'limit[]=1',
        'cursor=%',
        '%E0%A4%A',
        'from=',
        'a=b',
        '&',
        '=',
        '💥',
      ),
      {
        maxLength: 6,
      },
    )
    .map((parts) => parts.join('&')),
);

/** Header values fetch will send: visible ASCII and spaces (it rejects control characters itself). */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Bearer svc_test_',
    'bearer\tsvc_live_x',
    'application/json; charset=latin1',
  ),
);
const headerSet = fc.record(
  {
    authorization: fc.oneof(
      headerValue,
      headerValue.map((v) => `Bearer ${v}`),
    ),
    'content-type': fc.oneof(
      headerValue,
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/problem+json',
      ),
    ),
    'x-request-id': headerValue,
    'idempotency-key': headerValue,
    accept: headerValue,
    'content-encoding': fc.constantFrom('gzip', 'identity', 'br', 'x'),
  },
  { requiredKeys: [] },
);

// ---- properties --------------------------------------------------------------------------------

describe('bad input never gives a 5xx', () => {
  it('POST /v1/api-keys with random JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(jsonBody, async (rawBody) => {
        const res = await t.http.post('/v1/api-keys', {
          key: tenant.testKey,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expectSafe(res, `POST /v1/api-keys ${rawBody.slice(0, 200)}`);
        if (res.status < 400) expect(res.status).toBe(201);
      }),
      // Counterexamples found before: PostgreSQL text cannot hold NUL.
      {
        ...RUNS,
        examples: [['{"name":"a\\u0000","scopes":["channels:read"]}'], ['{"name":"n","scopes":["\\u0000"]}']],
      },
    );
  });

  it('POST /v1/api-keys/:id/rotate and /revoke with random ids and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('rotate', 'revoke'),
        pathId,
        fc.option(jsonBody, { nil: undefined }),
        async (action, id, rawBody) => {
          const path = `/v1/api-keys/${resolveId(id)}/${action}`;
          const res = await t.http.post(path, {
            key: tenant.testKey,
            rawBody,
            headers: rawBody === undefined ? {} : { 'content-type': 'application/json' },
          });
          expectSafe(res, `POST ${path} ${rawBody?.slice(0, 200)}`);
        },
      ),
      // Found before: over the router's parameter limit, and bad percent-encoding (Fastify's own replies).
      {
        ...RUNS,
        examples: [
          ['rotate', 'x'.repeat(300), undefined],
          ['revoke', '%E0%A4%A', undefined],
          ['rotate', '%00', '{}'],
        ],
      },
    );
  });

  it('GET /v1/api-keys and /v1/audit-logs with random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/api-keys', '/v1/audit-logs'),
        queryString,
        async (path, query) => {
          const res = await t.http.get(`${path}?${query}`, { key: tenant.testKey });
          expectSafe(res, `GET ${path}?${query}`);
        },
      ),
      RUNS,
    );
  });

  it('every endpoint with random header values', async () => {
    const endpoints = [
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys'],
      ['GET', '/v1/api-keys/__real0'],
      ['POST', '/v1/api-keys/__real1/rotate'],
      ['POST', '/v1/api-keys/key_0000000000000000000000/revoke'],
      ['GET', '/v1/audit-logs'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        headerSet,
        fc.boolean(),
        fc.option(jsonBody, { nil: undefined }),
        async ([method, rawPath], headers, realKey, rawBody) => {
          const path = rawPath.replace(/__real\d/, (m) => resolveId(m));
          const sent = { ...headers };
          if (realKey) sent.authorization = `Bearer ${tenant.testKey}`;
          const res = await t.http.request(method, path, {
            headers: sent,
            rawBody: method === 'POST' ? rawBody : undefined,
          });
          expectSafe(res, `${method} ${path} ${JSON.stringify(sent)}`);
        },
      ),
      RUNS,
    );
  });
});
