import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { principalOf } from '../auth/auth.hooks.ts';
import { AppError } from '../http/errors.ts';
import { rateLimitClient } from '../http/ip.ts';
import type { RateLimitDecision, RateLimiter } from './rate-limiter.ts';

/**
 * The rate-limit headers (README "Idempotency and rate limits"): the de facto X-RateLimit-* trio and the IETF
 * draft's pair (lower case, as sent).
 */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(Math.ceil(d.resetAtMs / 1000)),
    'ratelimit-policy': `"default";q=${d.limit};w=60`,
    ratelimit: `"default";r=${d.remaining};t=${d.resetInSeconds}`,
  };
}

export function setRateLimitHeaders(reply: FastifyReply, d: RateLimitDecision) {
  reply.headers(rateLimitHeaders(d));
}

/**
 * The key a public request is counted under: its site and client, an IPv6 client by its /64 and an
 * IPv4-mapped one as its IPv4 address (rateLimitClient).
 */
export function publicLimitKey(siteKey: string, clientAddress: string | undefined): string {
  return `site:${siteKey}:${rateLimitClient(clientAddress)}`;
}

/**
 * Public hits already counted before Fastify saw the request (a fast path that then handed a
 * refusal over to Fastify for its 429 problem): the hook below uses that decision instead of
 * counting the request twice.
 */
const countedBeforeRouting = new WeakMap<IncomingMessage, RateLimitDecision>();

export function handOverCountedHit(req: IncomingMessage, decision: RateLimitDecision) {
  countedBeforeRouting.set(req, decision);
}

/** Sets the decision's headers; returns the 429 rate_limited to answer when it refuses. */
function applyDecision(
  reply: FastifyReply,
  decision: RateLimitDecision,
  whose = 'More than',
): AppError | undefined {
  setRateLimitHeaders(reply, decision);
  if (decision.allowed) return undefined;
  return new AppError(
    'rate_limited',
    `${whose} ${decision.limit} requests in a minute; retry in ${decision.resetInSeconds} s.`,
    { headers: { 'Retry-After': String(decision.resetInSeconds) } },
  );
}

/** The counter of all API keys of one organization together (ORG_RATE_LIMIT_PER_MINUTE). */
export const organizationLimitKey = (organizationId: string) => `org:${organizationId}`;

/** Counts one request of `key` and throws 429 rate_limited past `limit` per minute (headers set either way). */
export async function enforceLimit(limiter: RateLimiter, reply: FastifyReply, key: string, limit: number) {
  const refusal = applyDecision(reply, await limiter.hit(key, limit));
  if (refusal) throw refusal;
}

/**
 * The limits of an authenticated request, run right after authentication and the scope check, before
 * validation: RATE_LIMIT_PER_MINUTE per API key (or, for a console session, per member), and for an
 * API key also its organization's limit, which all its keys share: ORG_RATE_LIMIT_PER_MINUTE, or the
 * override set with `orgs set-limit`. A request the key's own limit refuses is not counted against the
 * organization. The headers report the tighter of the two (rate-limiter.ts); they are set before
 * anything can fail, so every later error carries them too.
 */
export function apiKeyRateLimit(
  limiter: RateLimiter,
  limits: { perKey: number; perOrganization: number },
): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const principal = principalOf(request);
    // A console session counts against its member, whichever of their sessions calls; the console's
    // members are not the organization's integrations, so its keys exhausting their limit leaves
    // the console usable.
    if (principal.type === 'member') {
      await enforceLimit(limiter, reply, `member:${principal.memberId}`, limits.perKey);
      return;
    }
    const organizationKey = organizationLimitKey(principal.organizationId);
    const decision = await limiter.hitAll([
      { key: `key:${principal.keyId}`, limit: limits.perKey },
      { key: organizationKey, limit: principal.rateLimitPerMinute ?? limits.perOrganization },
    ]);
    const whose =
      decision.key === organizationKey ? "This organization's API keys together made more than" : 'More than';
    const refusal = applyDecision(reply, decision, whose);
    if (refusal) throw refusal;
  };
}

/**
 * The limit of public endpoints, per site and client address (PUBLIC_RATE_LIMIT_PER_MINUTE).
 * For routes with a `:siteKey` param; add it to the route's `onRequest`:
 *   `config: { auth: 'public' }, onRequest: [app.publicRateLimit]`.
 * The client address is `request.ip`: behind a proxy, set Fastify's trustProxy so it is the client's.
 */
export function publicRateLimit(limiter: RateLimiter, perMinute: number): onRequestHookHandler {
  // A callback hook, not an async one: counted in memory, the answer needs no promise (hot path).
  return (request: FastifyRequest, reply, done) => {
    const siteKey = (request.params as { siteKey?: string }).siteKey ?? '-';
    const decision =
      countedBeforeRouting.get(request.raw) ?? limiter.hit(publicLimitKey(siteKey, request.ip), perMinute);
    if (decision instanceof Promise) decision.then((d) => done(applyDecision(reply, d)), done);
    else done(applyDecision(reply, decision));
  };
}
