import { Redis } from 'ioredis';

/**
 * Increment and expiry in one server-side step: replicas never read-modify-write, so together
 * they admit at most the limit. The key names its window, so it only needs to outlive it.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

interface RedisWithHit extends Redis {
  rateLimitHit(key: string, ttlMs: number): Promise<number>;
}

export interface RedisCounter {
  /** Whether commands can be sent now (connected and ready). */
  ready(): boolean;
  increment(key: string, window: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

export async function connectRedisCounter(
  url: string,
  prefix: string,
  onConnectionError: (error: Error) => void,
): Promise<RedisCounter> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // A request must not wait for Redis: without a connection commands fail at once and the
    // caller counts in process; ioredis keeps reconnecting in the background.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Only for a connected Redis that stops answering (a lost connection fails at once, above).
    // Not shorter: on a busy process the timer can fire before a reply already received is read,
    // and a hit counted both in Redis and in process lets the replicas admit more than the limit.
    commandTimeout: 2000,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  }) as RedisWithHit;
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  // Without a listener ioredis prints every failed reconnect; the limiter logs the outage once.
  redis.on('error', onConnectionError);
  try {
    await redis.connect();
  } catch {
    // Unreachable at start: serve with the in-process fallback; reconnection continues.
  }
  return {
    ready: () => redis.status === 'ready',
    increment: (key, window, windowMs) => redis.rateLimitHit(`${prefix}:${key}:${window}`, windowMs + 5000),
    async close() {
      redis.disconnect();
    },
  };
}
