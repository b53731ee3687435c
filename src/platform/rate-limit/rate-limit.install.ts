import type { FastifyInstance, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import type { Clock } from '../clock.ts';
import type { RateLimitKind } from '../metrics/metrics.ts';
import { apiKeyRateLimit, publicRateLimit } from './rate-limit.hooks.ts';
import {
  createRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  type ReportedDecision,
} from './rate-limiter.ts';

/** Which limit a counter key belongs to, from its prefix (key:, member:, org:, site:, sign-in:); never the id itself. */
function limitKindOf(key: string): RateLimitKind {
  if (key.startsWith('site:')) return 'public';
  if (key.startsWith('sign-in:')) return 'sign_in';
  if (key.startsWith('org:')) return 'organization';
  return 'api';
}

/** The limiter, telling `onReject` of each refused hit: every refusal (API, public, sign-in) goes through `hit`. */
function countingRefusals(limiter: RateLimiter, onReject: (limit: RateLimitKind) => void): RateLimiter {
  // Defined once, not per hit: the hot public routes make no closure per request.
  const noted = <D extends RateLimitDecision>(key: string, decision: D): D => {
    if (!decision.allowed) onReject(limitKindOf(key));
    return decision;
  };
  const notedAll = (decision: ReportedDecision) => noted(decision.key, decision);
  return {
    ...limiter,
    hit(key, limit) {
      const decision = limiter.hit(key, limit);
      return decision instanceof Promise ? decision.then((d) => noted(key, d)) : noted(key, decision);
    },
    hitAll(hits) {
      const decision = limiter.hitAll(hits);
      return decision instanceof Promise ? decision.then(notedAll) : notedAll(decision);
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
    /** onRequest hook for public `:siteKey` routes: PUBLIC_RATE_LIMIT_PER_MINUTE per site and client address. */
    publicRateLimit: onRequestHookHandler;
  }
}

/**
 * Creates the limiter (connecting to Redis when configured), decorates the app with it and with
 * the public hook, closes it with the app, and returns the per-API-key hook for `installAuth`.
 */
export async function installRateLimits(
  app: FastifyInstance,
  options: {
    redisUrl: string | null;
    redisPrefix: string;
    perMinute: number;
    /** ORG_RATE_LIMIT_PER_MINUTE: all API keys of one organization together, unless overridden. */
    organizationPerMinute: number;
    publicPerMinute: number;
    clock: Clock;
    /** Told of every refusal, with which limit refused (the rate_limit_rejections metric). */
    onReject?: (limit: RateLimitKind) => void;
  },
): Promise<onRequestAsyncHookHandler> {
  const created = await createRateLimiter({
    redisUrl: options.redisUrl,
    redisPrefix: options.redisPrefix,
    clock: options.clock,
    log: app.log,
  });
  const limiter = options.onReject ? countingRefusals(created, options.onReject) : created;
  app.decorate('rateLimiter', limiter);
  app.decorate('publicRateLimit', publicRateLimit(limiter, options.publicPerMinute));
  app.addHook('onClose', () => limiter.close());
  return apiKeyRateLimit(limiter, {
    perKey: options.perMinute,
    perOrganization: options.organizationPerMinute,
  });
}
