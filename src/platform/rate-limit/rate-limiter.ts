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

export interface RateLimiter {
  /**
   * Counts one request of `key` against `limit` per minute. Never throws. Answers synchronously
   * when counting in this process (no REDIS_URL), so the hot public routes skip a promise.
   */
  hit(key: string, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
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

  return {
    hit(key, limit) {
      const now = clock.now().getTime();
      const window = Math.floor(now / WINDOW_MS);
      if (!redis) return decisionOf(memory.increment(key, window), limit, now, window);
      return count(key, window).then((used) => decisionOf(used, limit, now, window));
    },
    mode: () => (redis?.ready() && !degraded ? 'redis' : 'memory'),
    close: async () => redis?.close(),
  };
}
