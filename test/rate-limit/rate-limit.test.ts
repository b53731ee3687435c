import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/platform/http/error-handler.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createClient, expectProblemShape, type TestResponse } from '../helpers/http.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5', PUBLIC_RATE_LIMIT_PER_MINUTE: '3' } });
});
afterAll(() => t.close());

/** The rate-limit headers (README "Idempotency and rate limits"), checked against the app's clock. */
function expectLimitHeaders(res: TestResponse, limit: number, remaining: number) {
  const now = t.clock.now().getTime();
  const resetAt = (Math.floor(now / 60_000) + 1) * 60_000;
  const seconds = Math.ceil((resetAt - now) / 1000);
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  expect(res.headers.get('x-ratelimit-reset')).toBe(String(resetAt / 1000));
  expect(res.headers.get('ratelimit-policy')).toBe(`"default";q=${limit};w=60`);
  expect(res.headers.get('ratelimit')).toBe(`"default";r=${remaining};t=${seconds}`);
  return seconds;
}

describe('per-API-key rate limit', () => {
  it('admits the limit, then 429 rate_limited with every header and Retry-After', async () => {
    const tenant = await t.tenant();
    for (let i = 1; i <= 5; i++) {
      const res = await t.http.get('/v1/api-keys', { key: tenant.testKey });
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 5, 5 - i);
    }
    const over = await t.http.get('/v1/api-keys', { key: tenant.testKey });
    expectProblemShape(over, 429, 'rate_limited');
    const seconds = expectLimitHeaders(over, 5, 0);
    expect(over.headers.get('retry-after')).toBe(String(seconds));
    // Still limited on a write, before the body is even looked at.
    const write = await t.http.post('/v1/api-keys', { key: tenant.testKey, body: { nope: true } });
    expectProblemShape(write, 429, 'rate_limited');
  });

  it('gives every key its own budget', async () => {
    const tenant = await t.tenant();
    for (let i = 0; i < 6; i++) await t.http.get('/v1/api-keys', { key: tenant.testKey });
    const other = await t.http.get('/v1/api-keys', { key: tenant.liveKey });
    expect(other.status).toBe(200);
    expectLimitHeaders(other, 5, 4);
  });

  it('counts refused requests (403): a flood gets 429s and one auth.denied entry per route and minute', async () => {
    const tenant = await t.tenant();
    const reader = await tenant.key(['channels:read']);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await t.http.get('/v1/api-keys', { key: reader.secret })).status);
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429, 429, 429, 429, 429, 429]);
    t.clock.advance(60_000);
    // The next minute: a new budget and a new entry.
    expectProblemShape(await t.http.get('/v1/api-keys', { key: reader.secret }), 403, 'insufficient_scope');
    const audit = await t.app.services.audit.list(
      t.store.scope(null),
      { organizationId: tenant.organizationId, environment: 'test' },
      { action: 'auth.denied', actorId: reader.id },
      100,
      null,
    );
    expect(audit.map((e) => [e.targetId, e.count])).toEqual([
      ['GET /v1/api-keys', 1],
      ['GET /v1/api-keys', 5],
    ]);
    // Over HTTP, the entry shows its count.
    const shown = await t.http.get(`/v1/audit-logs?action=auth.denied&actorId=${reader.id}`, {
      key: tenant.testKey,
    });
    expect(shown.body.data.map((e: { count: number }) => e.count)).toEqual([1, 5]);
  });

  it('refills when the minute turns', async () => {
    const tenant = await t.tenant();
    for (let i = 0; i < 6; i++) await t.http.get('/v1/api-keys', { key: tenant.testKey });
    t.clock.advance(60_000);
    const res = await t.http.get('/v1/api-keys', { key: tenant.testKey });
    expect(res.status).toBe(200);
    expectLimitHeaders(res, 5, 4);
  });

  it('puts the headers on errors after authentication, and none on a 401', async () => {
    const tenant = await t.tenant();
    const notFound = await t.http.get('/v1/api-keys/key_nope', { key: tenant.testKey });
    expectProblemShape(notFound, 404, 'not_found');
    expectLimitHeaders(notFound, 5, 4);
    const invalid = await t.http.post('/v1/api-keys', { key: tenant.testKey, body: { nope: true } });
    expectProblemShape(invalid, 422, 'validation_failed');
    expectLimitHeaders(invalid, 5, 3);
    const forbidden = await t.http.get('/v1/api-keys', {
      key: (await tenant.key(['channels:read'])).secret,
    });
    expectProblemShape(forbidden, 403, 'insufficient_scope');
    // A refusal counts against the key's own limit (a fresh key: 4 left).
    expectLimitHeaders(forbidden, 5, 4);
    const unauthenticated = await t.http.get('/v1/api-keys');
    expectProblemShape(unauthenticated, 401, 'authentication_required');
    expect(unauthenticated.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('honours the per-organization override (orgs set-limit) at once, and its removal', async () => {
    const tenant = await t.tenant();
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, tenant.organizationId, 2));
    expectLimitHeaders(await t.http.get('/v1/api-keys', { key: tenant.testKey }), 2, 1);
    expectLimitHeaders(await t.http.get('/v1/api-keys', { key: tenant.testKey }), 2, 0);
    expectProblemShape(await t.http.get('/v1/api-keys', { key: tenant.testKey }), 429, 'rate_limited');
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, tenant.organizationId, null));
    const back = await t.http.get('/v1/api-keys', { key: tenant.testKey });
    expect(back.status).toBe(200);
    expectLimitHeaders(back, 5, 1);
  });

  it('applies the default of 100 per minute: the 101st request is 429', async () => {
    const d = await startTestApp({ store: t.store });
    try {
      const tenant = await d.tenant();
      for (let i = 1; i <= 100; i++) {
        const res = await d.http.get('/v1/api-keys/key_nope', { key: tenant.testKey });
        expect(res.status).toBe(404);
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(100 - i));
      }
      const over = await d.http.get('/v1/api-keys/key_nope', { key: tenant.testKey });
      expectProblemShape(over, 429, 'rate_limited');
      expect(over.headers.get('ratelimit-policy')).toBe('"default";q=100;w=60');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await d.close();
    }
  });
});

describe('public rate limit (per site and client address)', () => {
  it('is exported for public routes and counts per site', async () => {
    const site = Fastify({ logger: false });
    installErrorHandling(site, { docsUrl: t.config.docsUrl });
    site.get(
      '/v1/public/sites/:siteKey/config',
      { config: { auth: 'public' }, onRequest: [t.app.publicRateLimit] },
      async () => ({ data: {}, meta: {}, error: null }),
    );
    // The suite checks /v1 answers against the document their origin serves: this stand-in app
    // documents no operation, so its answers are not checked (only the real service's are).
    site.get('/v1/openapi.json', async () => ({
      openapi: '3.1.0',
      info: { title: 'stand-in', version: '1' },
      paths: {},
    }));
    await site.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = site.server.address();
      const http = createClient(
        `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      );
      const siteKey = `site_${Date.now()}`;
      for (let i = 1; i <= 3; i++) {
        const res = await http.get(`/v1/public/sites/${siteKey}/config`);
        expect(res.status).toBe(200);
        expectLimitHeaders(res, 3, 3 - i);
      }
      const over = await http.get(`/v1/public/sites/${siteKey}/config`);
      expect(over.status).toBe(429);
      expect(over.body.code).toBe('rate_limited');
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await http.get(`/v1/public/sites/${siteKey}x/config`)).status).toBe(200);
    } finally {
      await site.close();
    }
  });
});
