import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { createReadySite, postPreferences, preferencesBody, type ReadySite } from '../helpers/sites.ts';

/**
 * The public limit counts a client by its network, not by each address it can take: IPv6 by /64
 * (one subscriber's allocation, whose addresses change at will), IPv4 by address, an IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d) as the IPv4 address it is. Through the real public endpoints (the
 * config read answered before Fastify, and the preferences POST through Fastify), with the client
 * address given by X-Forwarded-For from a trusted proxy, in process and in Redis.
 */

const LIMIT = 3;
const sharedUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
let redisUrl: string | null = null;

beforeAll(async () => {
  const client = new Redis(sharedUrl, { lazyConnect: true, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    redisUrl = sharedUrl;
  } catch {
    redisUrl = null;
  } finally {
    client.disconnect();
  }
});

describe.each(['memory', 'redis'] as const)('the public rate limit, counted in %s', (store) => {
  let t: TestApp;
  let site: ReadySite;

  beforeAll(async () => {
    if (store === 'redis' && !redisUrl) return;
    t = await startTestApp({
      env: {
        TRUST_PROXY: 'true',
        PUBLIC_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_PER_MINUTE: '100000',
        ...(store === 'redis'
          ? {
              REDIS_URL: redisUrl as string,
              RATE_LIMIT_REDIS_PREFIX: `test-prefix-${process.pid}-${Date.now()}`,
            }
          : {}),
      },
    });
    expect(t.app.rateLimiter.mode()).toBe(store);
    const tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey);
  }, 60_000);
  afterAll(() => t?.close());

  /** A config read from `address` (answered before Fastify once the site is cached). */
  const read = (address: string) =>
    t.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers: { 'x-forwarded-for': address } });
  /** A decision posted from `address` (through Fastify). */
  const post = (address: string) =>
    postPreferences(t, site.siteKey, preferencesBody(site), { headers: { 'x-forwarded-for': address } });
  const remaining = (res: TestResponse) => res.headers.get('x-ratelimit-remaining');

  it('three addresses of one IPv6 /64 share one count, written in any notation', async (context) => {
    if (!t) context.skip('no Redis answers at REDIS_URL / 127.0.0.1:6379');
    const first = await read('2001:db8:40:5::1');
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe('2');
    const second = await post('2001:DB8:40:5:ffff:ffff:ffff:fffe');
    expect(second.status, second.text).toBe(201);
    expect(remaining(second)).toBe('1');
    const third = await read('2001:0db8:0040:0005:1234:5678:9abc:def0');
    expect(third.status).toBe(200);
    expect(remaining(third)).toBe('0');
    // A fourth address of the /64, by either endpoint: over the limit.
    expectProblemShape(await read('2001:db8:40:5:abcd::42'), 429, 'rate_limited');
    expectProblemShape(await post('2001:db8:40:5::2'), 429, 'rate_limited');
    // The next /64 is another network, counted apart.
    const neighbour = await read('2001:db8:40:6::1');
    expect(neighbour.status).toBe(200);
    expect(remaining(neighbour)).toBe('2');
  });

  it('IPv4 is counted per address, and an IPv4-mapped IPv6 address as that IPv4 address', async (context) => {
    if (!t) context.skip('no Redis answers at REDIS_URL / 127.0.0.1:6379');
    expect(remaining(await read('198.51.100.7'))).toBe('2');
    expect(remaining(await post('::ffff:198.51.100.7'))).toBe('1');
    expect(remaining(await read('::FFFF:c633:6407'))).toBe('0');
    expectProblemShape(await read('198.51.100.7'), 429, 'rate_limited');
    // Its neighbours, mapped or not, are other clients: not one ::ffff:0:0/96 (or /64) group.
    expect(remaining(await read('198.51.100.8'))).toBe('2');
    expect(remaining(await read('::ffff:198.51.100.9'))).toBe('2');
  });
});
