import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preValidationAsyncHookHandler,
  RouteHandlerMethod,
} from 'fastify';
import { BEARER } from '../auth/auth.hooks.ts';
import { sessionTokenOf } from '../auth/session-cookie.ts';
import type { Clock } from '../clock.ts';
import type { DbScope, Store } from '../db/store.ts';
import { AppError } from '../http/errors.ts';
import {
  type Captured,
  type CapturedResponse,
  capture,
  isRefusal,
  refusalResponse,
  runCapturing,
  send,
} from './captured-response.ts';
import { advisoryLockId, requestFingerprint } from './fingerprint.ts';
import { idempotencyRepo, type RecordKey } from './idempotency.repo.ts';
import type { IdempotencyOwner, KeyedWrite, RouteIdempotency } from './idempotency.scope.ts';
import type { IdempotencyRecord } from './idempotency.tables.ts';
import { parseIdempotencyKey } from './idempotency-key.ts';
import { createKeyedWrite, storeUnderKey } from './keyed-write.ts';
import { openBody, sealBody } from './sealed-body.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** See RouteIdempotency: a public route opts in with its key space, `false` opts out. */
    idempotency?: RouteIdempotency | false;
  }
  interface FastifyRequest {
    /** The unquoted Idempotency-Key of a mutating request, or null when none was sent. */
    idempotencyKey: string | null;
    /**
     * On a `handlerCommits` route, while a request with an Idempotency-Key runs its handler: how
     * its writes commit with the key's record (KeyedWrite). Null otherwise: write as usual.
     */
    keyedWrite: KeyedWrite | null;
    /**
     * The request's database, which the handler passes to the services it calls. While a request
     * with an Idempotency-Key runs its handler on a route without `handlerCommits`: inside the
     * transaction the key's record commits in (a savepoint of it), so the request's reads see its
     * own writes and its writes commit with the record. Otherwise outside any transaction: each
     * write opens its own.
     */
    readonly db: DbScope;
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MUTATING = new Set(['POST', 'PATCH', 'DELETE']);
/** The record of a completed request; a body that may hold a secret is sealed with the caller's own. */
function storedRecord(
  recordKey: RecordKey,
  fingerprint: string,
  owner: IdempotencyOwner,
  requestId: string,
  response: CapturedResponse,
  now: Date,
): IdempotencyRecord {
  const sealed = owner.sealingSecret !== null && response.body !== null;
  return {
    ...recordKey,
    environment: owner.environment,
    fingerprint,
    responseStatus: response.status,
    responseHeaders: response.headers,
    responseBody: sealed
      ? sealBody(response.body as string, owner.sealingSecret as string, recordKey.key)
      : response.body,
    responseBodyEncrypted: sealed,
    requestId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  };
}

/**
 * The owner of an authenticated request's keys: its API key, or its console session. A session's
 * cookie token plays the API key secret's part: only the browser holds it, the database only its
 * hash, so a sealed response (a new key's secret) opens only for a retry from the same session.
 */
function apiKeyOwner(request: FastifyRequest): IdempotencyOwner {
  const principal = request.principal;
  if (!principal) throw new Error('idempotency on an authenticated route without a principal');
  if (principal.type === 'member') {
    return {
      organizationId: principal.organizationId,
      environment: principal.environment,
      scope: `session:${principal.sessionId}`,
      sealingSecret: sessionTokenOf(request),
    };
  }
  const secret = BEARER.exec(request.headers.authorization ?? '')?.[1] ?? null;
  return {
    organizationId: principal.organizationId,
    environment: principal.environment,
    scope: principal.keyId,
    sealingSecret: secret,
  };
}

const parseKey: preValidationAsyncHookHandler = async (request) => {
  const header = request.headers['idempotency-key'];
  request.idempotencyKey = header === undefined ? null : parseIdempotencyKey(header);
};

/** The record of this request's key, and how a completed response becomes its stored record. */
function keyOf(request: FastifyRequest, owner: IdempotencyOwner, key: string) {
  const recordKey = { organizationId: owner.organizationId, scope: owner.scope, key };
  const fingerprint = requestFingerprint(request.method, request.url, request.body);
  const recordOf = (response: CapturedResponse, now: Date) =>
    storedRecord(recordKey, fingerprint, owner, request.id, response, now);
  return { recordKey, fingerprint, recordOf };
}

/** Sends a fresh outcome; a refusal goes through the error handler, which sends the same problem that was stored. */
function answer(reply: FastifyReply, outcome: Captured) {
  if (outcome.failure) throw outcome.failure;
  return send(reply, outcome.response);
}

/** Replays the response stored under a key; the key sent with another request is refused (reused). */
function replay(
  reply: FastifyReply,
  record: IdempotencyRecord,
  fingerprint: string,
  owner: IdempotencyOwner,
  key: string,
) {
  if (record.fingerprint !== fingerprint) {
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request (method, path or body); use a new key.',
    );
  }
  let body = record.responseBody;
  if (body !== null && record.responseBodyEncrypted) {
    // The scope is the API key (or session) id, whose secret never changes: this only fails on tampering.
    body = owner.sealingSecret === null ? null : openBody(body, owner.sealingSecret, key);
    if (body === null) throw new Error('stored idempotent response cannot be opened');
  }
  reply.header('Idempotent-Replayed', 'true').header('Original-Request-Id', record.requestId);
  return send(reply, { status: record.responseStatus, headers: record.responseHeaders, body });
}

/**
 * Idempotency-Key on every authenticated POST, PATCH and DELETE, and on public routes that opt in
 * (README "Idempotency and rate limits"). Must be installed before the routes. The handler of each such route
 * is wrapped: with a key, one transaction takes a per-key advisory lock (taken elsewhere → 409 in use), then
 * replays a stored response or runs the handler in a savepoint and stores its response in the same
 * transaction, so the resource and its record commit together or not at all. A 4xx AppError is
 * stored (the savepoint undoes the handler's writes); a 5xx or unknown error stores nothing.
 *
 * On PGlite transactions run one at a time, so a duplicate waits for the first to commit and
 * then replays it, instead of getting 409: the lock is never contended there.
 *
 * A `handlerCommits` route (the consent write) holds no transaction across its handler, so it can
 * share a group commit with concurrent requests: its service commits its writes with the key's
 * record in one statement of its own, through `request.keyedWrite`, before it answers. A key
 * already stored, or one a concurrent request is committing, is found taken by that insert (the
 * writes are not made) and the first response is replayed: no 409 on this path.
 */
export function installIdempotency(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; docsUrl: string },
) {
  const { store, clock, docsUrl } = deps;
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('keyedWrite', null);
  const outside = store.scope(null);
  /** The scope of each request running its handler inside the key's transaction. */
  const inside = new WeakMap<FastifyRequest, DbScope>();
  app.decorateRequest('db', {
    getter(this: FastifyRequest) {
      return inside.get(this) ?? outside;
    },
  });

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => MUTATING.has(m))) return;
    const config = route.config ?? {};
    if (config.idempotency === false) return;
    const ownerOf = config.idempotency
      ? config.idempotency.owner
      : config.auth && config.auth !== 'public'
        ? apiKeyOwner
        : null;
    if (!ownerOf) return;
    const handlerCommits = config.idempotency ? config.idempotency.handlerCommits === true : false;
    const existing = route.preValidation ? [route.preValidation].flat() : [];
    route.preValidation = [parseKey, ...existing] as never;
    const original = route.handler as RouteHandlerMethod;
    route.handler = async function idempotent(
      this: FastifyInstance,
      request: FastifyRequest,
      reply: FastifyReply,
    ) {
      const key = request.idempotencyKey;
      if (key === null || !MUTATING.has(request.method)) return original.call(this, request, reply);
      const owner = await ownerOf(request);
      return handlerCommits
        ? runCommittingHandler(this, original, request, reply, owner, key)
        : runIdempotent(this, original, request, reply, owner, key);
    } as never;
  });

  /**
   * A `handlerCommits` route: the handler runs outside any transaction, and its service commits
   * through `request.keyedWrite`. A refusal commits nothing but its problem, stored under the key
   * like an answer; when another request holds the key, that request's answer is replayed.
   */
  async function runCommittingHandler(
    instance: FastifyInstance,
    handler: RouteHandlerMethod,
    request: FastifyRequest,
    reply: FastifyReply,
    owner: IdempotencyOwner,
    key: string,
  ) {
    const { recordKey, fingerprint, recordOf } = keyOf(request, owner, key);
    const keyed = createKeyedWrite({ store, clock }, reply, recordKey, recordOf);
    request.keyedWrite = keyed;
    try {
      const answered = await handler.call(instance, request, reply);
      return keyed.holder ? replay(reply, keyed.holder, fingerprint, owner, key) : answered;
    } catch (error) {
      if (!isRefusal(error) || keyed.committed) throw error;
      const holder = await storeUnderKey(
        { store, clock },
        recordKey,
        recordOf,
        refusalResponse(request, error, docsUrl),
        (record) => store.tx((tx) => idempotencyRepo.insertIfFree(tx, record)),
      );
      if (holder) return replay(reply, holder, fingerprint, owner, key);
      throw error;
    } finally {
      request.keyedWrite = null;
    }
  }

  async function runIdempotent(
    instance: FastifyInstance,
    handler: RouteHandlerMethod,
    request: FastifyRequest,
    reply: FastifyReply,
    owner: IdempotencyOwner,
    key: string,
  ) {
    const { recordKey, fingerprint, recordOf } = keyOf(request, owner, key);
    const run = () => capture(request, docsUrl, () => runCapturing(instance, handler, request, reply));

    const result = await store.tx(async (tx) => {
      if (!(await idempotencyRepo.tryLock(tx, advisoryLockId(owner.organizationId, owner.scope, key)))) {
        throw new AppError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still running.',
          {
            headers: { 'Retry-After': '1' },
          },
        );
      }
      const now = clock.now();
      const stored = await idempotencyRepo.find(tx, recordKey);
      if (stored && stored.expiresAt > now) return { stored, fresh: null };
      // Expired but not yet purged: the key is free again.
      if (stored) await idempotencyRepo.remove(tx, recordKey);
      // The savepoint undoes the handler's writes when it answers a 4xx, which is stored all the same.
      const outcome = await store.savepoint(tx, async (savepoint) => {
        inside.set(request, store.scope(savepoint));
        try {
          return await run();
        } finally {
          inside.delete(request);
        }
      });
      await idempotencyRepo.insert(tx, recordOf(outcome.response, now));
      return { stored: null, fresh: outcome };
    });

    if (result.stored) return replay(reply, result.stored, fingerprint, owner, key);
    return answer(reply, result.fresh as Captured);
  }
}
