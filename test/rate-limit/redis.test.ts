import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite } from '../helpers/sites.ts';

/**
 * Shared counting across replicas and survival of a Redis outage. Uses REDIS_URL (CI) or the
 * local 127.0.0.1:6379; where neither answers, a redis-server of our own. The outage test always
 * runs its own redis-server (it must kill it) and is skipped only if redis-server cannot start.
 */
const sharedUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `test-${process.pid}-${Date.now()}`;
const children: ChildProcess[] = [];
// A worker that dies between tests must not leave servers behind.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function reachable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a throwaway redis-server; null when the binary is missing or it does not answer. */
async function startRedis(port: number): Promise<ChildProcess | null> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  child.on('error', () => {});
  children.push(child);
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null) return null;
    if (await reachable(`redis://127.0.0.1:${port}`)) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  return null;
}

async function stopRedis(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

let url: string | null = null;
let ownPort = 0;
let canStartRedis = false;

beforeAll(async () => {
  ownPort = await freePort();
  const own = await startRedis(ownPort);
  canStartRedis = own !== null;
  if (own) await stopRedis(own);
  url = (await reachable(sharedUrl)) ? sharedUrl : null;
  if (!url && canStartRedis) {
    const port = await freePort();
    if (await startRedis(port)) url = `redis://127.0.0.1:${port}`;
  }
});
afterAll(async () => {
  for (const child of children) await stopRedis(child);
});

describe('rate limits in Redis', () => {
  it('two instances sharing Redis admit at most the limit together', async (context) => {
    if (!url)
      context.skip('no Redis answers at REDIS_URL / 127.0.0.1:6379 and redis-server cannot be started');
    const env = { REDIS_URL: url as string, RATE_LIMIT_PER_MINUTE: '10', RATE_LIMIT_REDIS_PREFIX: prefix };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, store: a.store });
    try {
      b.clock.set(a.clock.now());
      expect(a.app.rateLimiter.mode()).toBe('redis');
      expect(b.app.rateLimiter.mode()).toBe('redis');
      const tenant = await a.tenant();
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? a : b).http.get('/v1/api-keys', { key: tenant.testKey }),
        ),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
      for (const r of responses.filter((x) => x.status !== 200)) expectProblemShape(r, 429, 'rate_limited');
      // Both instances answered, and each one's own count would have admitted more.
      const admittedBy = (app: TestApp) =>
        responses.filter((r, i) => r.status === 200 && (i % 2 ? a : b) === app).length;
      expect(admittedBy(a) + admittedBy(b)).toBe(10);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('the organization limit is shared too: its keys on two instances admit at most it together', async (context) => {
    if (!url)
      context.skip('no Redis answers at REDIS_URL / 127.0.0.1:6379 and redis-server cannot be started');
    const env = {
      REDIS_URL: url as string,
      RATE_LIMIT_PER_MINUTE: '100',
      ORG_RATE_LIMIT_PER_MINUTE: '12',
      RATE_LIMIT_REDIS_PREFIX: prefix,
    };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, store: a.store });
    try {
      b.clock.set(a.clock.now());
      const tenant = await a.tenant();
      const keys = [tenant.testKey, tenant.liveKey, (await tenant.key(['api_keys:read'])).secret];
      // Three keys, each far within its own limit, on both instances at once.
      const responses = await Promise.all(
        Array.from({ length: 36 }, (_, i) => (i % 2 ? a : b).http.get('/v1/api-keys', { key: keys[i % 3] })),
      );
      const windows = new Set(responses.map((r) => r.headers.get('x-ratelimit-reset')));
      const admitted = responses.filter((r) => r.status === 200).length;
      expect(admitted).toBeLessThanOrEqual(12 * windows.size);
      if (windows.size === 1) expect(admitted).toBe(12);
      for (const r of responses.filter((x) => x.status !== 200)) {
        expectProblemShape(r, 429, 'rate_limited');
        expect(r.headers.get('x-ratelimit-limit')).toBe('12');
      }
      // Another organization still has its whole budget.
      const other = await a.tenant();
      expect((await b.http.get('/v1/api-keys', { key: other.testKey })).status).toBe(200);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('public config reads answered before Fastify count in Redis too, across instances', async (context) => {
    if (!url)
      context.skip('no Redis answers at REDIS_URL / 127.0.0.1:6379 and redis-server cannot be started');
    const env = {
      REDIS_URL: url as string,
      PUBLIC_RATE_LIMIT_PER_MINUTE: '4',
      RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_REDIS_PREFIX: `${prefix}-public`,
    };
    const a = await startTestApp({ env });
    const b = await startTestApp({ env, store: a.store });
    try {
      b.clock.set(a.clock.now());
      const tenant = await a.tenant();
      const site = await createReadySite(a, tenant.testKey);
      const read = (app: TestApp) => app.http.get(`/v1/public/sites/${site.siteKey}/config`);
      // One read each fills both instances' site caches; from then on the fast path answers.
      const remaining: string[] = [];
      for (const app of [a, b, a, b]) {
        const res = await read(app);
        expect(res.status).toBe(200);
        remaining.push(res.headers.get('x-ratelimit-remaining') as string);
      }
      expect(remaining).toEqual(['3', '2', '1', '0']);
      const refused = await read(a);
      expectProblemShape(refused, 429, 'rate_limited');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('keeps serving when Redis goes away (per-process fallback, logged once) and uses it again when back', async (context) => {
    if (!canStartRedis) context.skip('redis-server cannot be started here');
    const port = await freePort();
    let redis = await startRedis(port);
    const logLines: string[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    const t = await startTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_REDIS_PREFIX: prefix },
      logger: { level: 'info', stream: logStream },
    });
    try {
      const tenant = await t.tenant();
      const get = () => t.http.get('/v1/api-keys', { key: tenant.testKey });
      expect(t.app.rateLimiter.mode()).toBe('redis');
      for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);

      await stopRedis(redis as ChildProcess);
      for (let i = 0; i < 10; i++) {
        const res = await get();
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      }
      expect(t.app.rateLimiter.mode()).toBe('memory');
      const warnings = logLines.filter((line) => line.includes('Redis is unreachable'));
      expect(warnings).toHaveLength(1);

      redis = await startRedis(port);
      expect(redis).not.toBeNull();
      const deadline = Date.now() + 10_000;
      while (t.app.rateLimiter.mode() !== 'redis' && Date.now() < deadline) {
        expect((await get()).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(t.app.rateLimiter.mode()).toBe('redis');
      expect(logLines.some((line) => line.includes('Redis is reachable again'))).toBe(true);
      const client = new Redis(`redis://127.0.0.1:${port}`);
      try {
        expect(await client.keys(`${prefix}:*`)).not.toHaveLength(0);
      } finally {
        client.disconnect();
      }
    } finally {
      await t.close();
    }
  });
});
