import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import { createMemoryCounter } from './memory-counter.ts';
import { connectRedisCounter, type RedisCounter } from './redis-counter.ts';

/** Limits are per minute, and the RateLimit-Policy header says w=60. */
export const WINDOW_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** End of the current window, unix milliseconds. */
  resetAtMs: number;
  /** Whole seconds until the window ends (at least 1). */
  resetInSeconds: number;
}

function decisionOf(used: number, limit: number, now: number, window: number): RateLimitDecision {
  const resetAtMs = (window + 1) * WINDOW_MS;
  return {
    allowed: used <= limit,
    limit,
    remaining: Math.max(0, limit - used),
    resetAtMs,
    resetInSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
  };
}

/** One limit a request is counted against: its counter's key and the limit per minute. */
export interface LimitHit {
  key: string;
  limit: number;
}

/** The decision a request's headers report among its limits, and the key of the limit it is. */
export interface ReportedDecision extends RateLimitDecision {
  key: string;
}

/**
 * The decision to report among several: the first refusal, else the tightest (fewest requests
 * remaining; of equals, the lower limit), so the headers never promise more than any limit allows.
 */
function reported(hits: readonly LimitHit[], decisions: RateLimitDecision[]): ReportedDecision {
  let chosen = 0;
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i];
    if (!d.allowed) return { ...d, key: hits[i].key };
    const best = decisions[chosen];
    if (d.remaining < best.remaining || (d.remaining === best.remaining && d.limit < best.limit)) chosen = i;
  }
  return { ...decisions[chosen], key: hits[chosen].key };
}

export interface RateLimiter {
  /**
   * Counts one request of `key` against `limit` per minute. Never throws. Answers synchronously
   * when counting in this process (no REDIS_URL), so the hot public routes skip a promise.
   */
  hit(key: string, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Counts one request against each of `hits` in order (an API key's own limit, then its
   * organization's), up to the first that refuses: a request a key's own limit refused is not
   * counted against its organization. With Redis, one round trip for all of them. Never throws.
   */
  hitAll(hits: readonly LimitHit[]): ReportedDecision | Promise<ReportedDecision>;
  /** Where counts go right now: `redis`, or `memory` (no REDIS_URL, or Redis unreachable). */
  mode(): 'redis' | 'memory';
  close(): Promise<void>;
}

/**
 * Fixed one-minute windows aligned on the clock (our own limiter rather than
 * @fastify/rate-limit, whose Redis store is a read-modify-write and whose hooks cannot run after
 * our authentication yet before body validation). The clock is the app's, so tests move time.
 * With a Redis URL the counts are shared by every replica; while Redis is unreachable each
 * process counts alone (logged once), and Redis is used again as soon as it is back.
 */
export async function createRateLimiter(options: {
  redisUrl: string | null;
  redisPrefix: string;
  clock: Clock;
  log: FastifyBaseLogger;
}): Promise<RateLimiter> {
  const { clock, log } = options;
  const memory = createMemoryCounter();
  let degraded = false;
  const degrade = (error: unknown) => {
    if (degraded) return;
    degraded = true;
    log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'Redis is unreachable: rate limits are counted per process until it is back',
    );
  };
  const redis: RedisCounter | null = options.redisUrl
    ? await connectRedisCounter(options.redisUrl, options.redisPrefix, degrade)
    : null;

  async function count(key: string, window: number): Promise<number> {
    if (redis?.ready()) {
      try {
        const n = await redis.increment(key, window, WINDOW_MS);
        if (degraded) {
          degraded = false;
          log.info('Redis is reachable again: rate limits are shared across replicas');
        }
        return n;
      } catch (error) {
        degrade(error);
      }
    } else if (redis) {
      degrade(new Error('not connected'));
    }
    return memory.increment(key, window);
  }

  /** hitAll in this process: the same rule as the Redis script's. */
  function countAllInMemory(hits: readonly LimitHit[], window: number): number[] {
    const counts: number[] = [];
    for (const { key, limit } of hits) {
      const used = memory.increment(key, window);
      counts.push(used);
      if (used > limit) break;
    }
    return counts;
  }

  async function countAll(hits: readonly LimitHit[], window: number): Promise<number[]> {
    if (redis?.ready()) {
      try {
        const counts = await redis.incrementAll(hits, window, WINDOW_MS);
        if (degraded) {
          degraded = false;
          log.info('Redis is reachable again: rate limits are shared across replicas');
        }
        return counts;
      } catch (error) {
        degrade(error);
      }
    } else if (redis) {
      degrade(new Error('not connected'));
    }
    return countAllInMemory(hits, window);
  }

  const decide = (hits: readonly LimitHit[], counts: number[], now: number, window: number) =>
    reported(
      hits,
      counts.map((used, i) => decisionOf(used, hits[i].limit, now, window)),
    );

  return {
    hit(key, limit) {
      const now = clock.now().getTime();
      const window = Math.floor(now / WINDOW_MS);
      if (!redis) return decisionOf(memory.increment(key, window), limit, now, window);
      return count(key, window).then((used) => decisionOf(used, limit, now, window));
    },
    hitAll(hits) {
      const now = clock.now().getTime();
      const window = Math.floor(now / WINDOW_MS);
      if (!redis) return decide(hits, countAllInMemory(hits, window), now, window);
      return countAll(hits, window).then((counts) => decide(hits, counts, now, window));
    },
    mode: () => (redis?.ready() && !degraded ? 'redis' : 'memory'),
    close: async () => redis?.close(),
  };
}
