import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';

/**
 * All API keys of one organization share ORG_RATE_LIMIT_PER_MINUTE besides each key's own
 * RATE_LIMIT_PER_MINUTE (README "Idempotency and rate limits"): more keys never buy more requests.
 * Here each key may send 5 a minute and the organization 8; the headers report the tighter limit.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5', ORG_RATE_LIMIT_PER_MINUTE: '8' } });
});
afterAll(() => t.close());

const limitOf = (res: TestResponse) => [
  res.status,
  Number(res.headers.get('x-ratelimit-limit')),
  Number(res.headers.get('x-ratelimit-remaining')),
];

async function organizationWithKeys(count: number) {
  const tenant = await t.tenant();
  const keys = [tenant.testKey, tenant.liveKey];
  while (keys.length < count) keys.push((await tenant.key(['api_keys:read'])).secret);
  return { tenant, keys };
}

const list = (key: string) => t.http.get('/v1/api-keys', { key });

describe('the organization limit', () => {
  it('is shared by every key: past it, 429 whichever key, and the headers report the tighter limit', async () => {
    const { keys } = await organizationWithKeys(3);
    const [a, b, c] = keys;
    // Key a: its own limit (5) is the tighter while the organization has more left.
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(limitOf(await list(a)));
    expect(seen).toEqual([
      [200, 5, 4],
      [200, 5, 3],
      [200, 5, 2],
      [200, 5, 1],
    ]);
    // Key b, fresh: the organization (4 left of 8) is the tighter now.
    expect(limitOf(await list(b))).toEqual([200, 8, 3]);
    expect(limitOf(await list(b))).toEqual([200, 8, 2]);
    expect(limitOf(await list(c))).toEqual([200, 8, 1]);
    expect(limitOf(await list(c))).toEqual([200, 8, 0]);
    // The ninth request of the organization: refused, whichever key, even one with room of its own.
    for (const key of [c, a]) {
      const over = await list(key);
      const problem = expectProblemShape(over, 429, 'rate_limited');
      expect(problem.detail).toMatch(/organization's API keys together made more than 8 requests/);
      expect(limitOf(over)).toEqual([429, 8, 0]);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-policy')).toBe('"default";q=8;w=60');
    }
    // Another organization is untouched.
    const other = await t.tenant();
    expect(limitOf(await list(other.testKey))).toEqual([200, 5, 4]);
    // The next minute, a new budget for all of them.
    t.clock.advance(60_000);
    expect(limitOf(await list(c))).toEqual([200, 5, 4]);
  });

  it('does not count a request its key’s own limit refused', async () => {
    const { keys } = await organizationWithKeys(2);
    const [a, b] = keys;
    for (let i = 0; i < 5; i++) expect((await list(a)).status).toBe(200);
    for (let i = 0; i < 3; i++) expectProblemShape(await list(a), 429, 'rate_limited');
    const over = await list(a);
    expect(expectProblemShape(over, 429, 'rate_limited').detail).toMatch(/^More than 5 requests/);
    expect(limitOf(over)).toEqual([429, 5, 0]);
    // The organization counted a's five, not its refusals: b has three left of the organization's eight.
    expect(limitOf(await list(b))).toEqual([200, 8, 2]);
  });

  it('orgs set-limit sets it, above the default or below it, from the next request on', async () => {
    const { tenant, keys } = await organizationWithKeys(3);
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, tenant.organizationId, 12));
    // Three keys of five each: twelve together, no more.
    const statuses: number[] = [];
    for (const key of keys) for (let i = 0; i < 5; i++) statuses.push((await list(key)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.slice(12)).toEqual([429, 429, 429]);
    t.clock.advance(60_000);
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, tenant.organizationId, 2));
    expect(limitOf(await list(keys[0]))).toEqual([200, 2, 1]);
    expect(limitOf(await list(keys[1]))).toEqual([200, 2, 0]);
    expectProblemShape(await list(keys[2]), 429, 'rate_limited');
  });

  it('counts its refusals in /metrics as limit="organization"', async () => {
    const { keys } = await organizationWithKeys(2);
    const before = await organizationRejections();
    for (let i = 0; i < 5; i++) await list(keys[0]);
    for (let i = 0; i < 3; i++) await list(keys[1]);
    expectProblemShape(await list(keys[1]), 429, 'rate_limited');
    expect(await organizationRejections()).toBe(before + 1);
  });
});

async function organizationRejections(): Promise<number> {
  const res = await t.http.get('/metrics');
  expect(res.status).toBe(200);
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith('consent_service_rate_limit_rejections_total{limit="organization"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}
