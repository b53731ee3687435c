import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import type { TestResponse } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * `GET …/config` of a cached site is answered before Fastify (modules/sites/config-fast-path.ts);
 * the same URL with a query string, or a site not yet cached, goes through the Fastify route.
 * Both must give the same answer, header for header and byte for byte.
 */
let t: TestApp;
let tenant: Tenant;
let s: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  s = await createReadySite(t, tenant.liveKey);
  // The first read loads the site into the cache (through Fastify); from then on the fast path answers.
  expect((await t.http.get(`/v1/public/sites/${s.siteKey}/config`)).status).toBe(200);
});
afterAll(() => t.close());

/** Headers that differ between any two responses by design: a new request id, a count, the time. */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'date']);

function comparable(res: TestResponse) {
  const headers = [...res.headers.entries()].filter(([name]) => !PER_REQUEST.has(name));
  return { status: res.status, headers, text: res.text };
}

async function bothPaths(headers: Record<string, string>) {
  const fast = await t.http.get(`/v1/public/sites/${s.siteKey}/config`, { headers });
  // A query string, an empty one too, leaves the request to Fastify's route (config-fast-path.ts);
  // an unknown parameter would be a 422 there.
  const routed = await t.http.get(`/v1/public/sites/${s.siteKey}/config?`, { headers });
  return { fast, routed };
}

describe('GET …/config answered before Fastify', () => {
  it.each([
    ['no Origin', {}],
    ['a registered Origin (CORS headers)', { origin: SITE_ORIGIN }],
    ['a foreign Origin (no CORS headers)', { origin: 'https://evil.example.net' }],
    ['a client X-Request-Id', { 'x-request-id': 'req_client_1' }],
  ])('answers as the Fastify route does: %s', async (_case, headers: Record<string, string>) => {
    const { fast, routed } = await bothPaths(headers);
    expect(fast.status).toBe(200);
    expect(comparable(fast)).toEqual(comparable(routed));
    expect(fast.headers.get('x-request-id')).toMatch(/^req_/);
    if (headers['x-request-id']) expect(fast.headers.get('x-request-id')).toBe('req_client_1');
  });

  it('If-None-Match: the same 304 without a body on both paths', async () => {
    const etag = (await t.http.get(`/v1/public/sites/${s.siteKey}/config`)).headers.get('etag') as string;
    const { fast, routed } = await bothPaths({ 'if-none-match': `W/"other", ${etag}` });
    expect(fast.status).toBe(304);
    expect(fast.text).toBe('');
    expect(comparable(fast)).toEqual(comparable(routed));
  });

  it('each request counts once against the public limit, whichever path answers it', async () => {
    const remaining: number[] = [];
    for (const url of ['/config', '/config?a=1', '/config', '/config?b=2']) {
      const res = await t.http.get(`/v1/public/sites/${s.siteKey}${url}`);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining.slice(1).map((r, i) => remaining[i] - r)).toEqual([1, 1, 1]);
  });

  it('a refusal is the 429 problem of the Fastify route, counted once', async () => {
    const limited = await startTestApp({ store: t.store, env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const get = () => limited.http.get(`/v1/public/sites/${s.siteKey}/config`);
      expect((await get()).headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await get()).headers.get('x-ratelimit-remaining')).toBe('0');
      const refused = await get();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(refused.body.requestId).toBe(refused.headers.get('x-request-id'));
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      const scrape = await limited.http.get('/metrics');
      expect(scrape.text).toMatch(/consent_service_rate_limit_rejections_total\{limit="public"\} 1\n/);
    } finally {
      await limited.close();
    }
  });

  it('is counted in the request metrics under its route template', async () => {
    const count = async () => {
      const text = (await t.http.get('/metrics')).text;
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_requests_total{') &&
            l.includes('route="/v1/public/sites/:siteKey/config"') &&
            l.includes('status="200"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count();
    await t.http.get(`/v1/public/sites/${s.siteKey}/config`);
    await t.http.get(`/v1/public/sites/${s.siteKey}/config`);
    expect((await count()) - before).toBe(2);
  });

  it('an archived site is a 404 from the next request on', async () => {
    const other = await createReadySite(t, tenant.liveKey);
    expect((await t.http.get(`/v1/public/sites/${other.siteKey}/config`)).status).toBe(200);
    expect((await t.http.get(`/v1/public/sites/${other.siteKey}/config`)).status).toBe(200);
    const archived = await t.http.post(`/v1/channels/${other.channelId}/archive`, { key: tenant.liveKey });
    expect(archived.status).toBe(200);
    const after = await t.http.get(`/v1/public/sites/${other.siteKey}/config`);
    expect(after.status).toBe(404);
    expect(after.body.code).toBe('not_found');
  });
});
