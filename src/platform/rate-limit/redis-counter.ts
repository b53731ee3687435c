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

/**
 * Several limits of one request (an API key's, then its organization's) in one step: each key is
 * counted in order, and the first whose count passes its limit (ARGV[1 + i]) ends the script, so a
 * request one limit refused is not counted against the next. Answers the counts made.
 */
const HIT_ALL_SCRIPT = `
local counts = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  counts[i] = count
  if count > tonumber(ARGV[i + 1]) then break end
end
return counts
`;

interface RedisWithHit extends Redis {
  rateLimitHit(key: string, ttlMs: number): Promise<number>;
  rateLimitHitAll(count: number, ...keysThenArgs: Array<string | number>): Promise<number[]>;
}

export interface RedisCounter {
  /** Whether commands can be sent now (connected and ready). */
  ready(): boolean;
  increment(key: string, window: number, windowMs: number): Promise<number>;
  /** The counts of HIT_ALL_SCRIPT: one per key counted, in order, up to the first past its limit. */
  incrementAll(
    hits: ReadonlyArray<{ key: string; limit: number }>,
    window: number,
    windowMs: number,
  ): Promise<number[]>;
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
  // The number of keys is given on each call (the first argument).
  redis.defineCommand('rateLimitHitAll', { lua: HIT_ALL_SCRIPT });
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
    incrementAll: (hits, window, windowMs) =>
      redis.rateLimitHitAll(
        hits.length,
        ...hits.map(({ key }) => `${prefix}:${key}:${window}`),
        windowMs + 5000,
        ...hits.map(({ limit }) => limit),
      ),
    async close() {
      redis.disconnect();
    },
  };
}
