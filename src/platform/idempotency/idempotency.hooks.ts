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
import { UnitOfWork } from '../db/unit-of-work.ts';
import { AppError } from '../http/errors.ts';
import { PROBLEM_CONTENT_TYPE, problemBody, problemHeaders } from '../http/problem.ts';
import { advisoryLockId, requestFingerprint } from './fingerprint.ts';
import { idempotencyRepo, type RecordKey } from './idempotency.repo.ts';
import type { IdempotencyOwner, RouteIdempotency } from './idempotency.scope.ts';
import type { IdempotencyRecord } from './idempotency.tables.ts';
import { parseIdempotencyKey } from './idempotency-key.ts';
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
     * On a route with `commitStaged`, while a request with an Idempotency-Key runs its handler: the
     * unit its writes are staged in (committed with the key's record). Null otherwise: write.
     */
    unitOfWork: UnitOfWork | null;
    /**
     * The request's database, which the handler passes to the services it calls. While a request
     * with an Idempotency-Key runs its handler on a route without `commitStaged`: inside the
     * transaction the key's record commits in (a savepoint of it), so the request's reads see its
     * own writes and its writes commit with the record. Otherwise outside any transaction: each
     * write opens its own.
     */
    readonly db: DbScope;
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MUTATING = new Set(['POST', 'PATCH', 'DELETE']);
/** Response headers a replay repeats; the rate-limit and request-id headers are the replay's own. */
const KEPT_HEADERS = ['location', 'content-location'];
const JSON_TYPE = 'application/json; charset=utf-8';

/** A response as stored: what the client got, byte for byte. */
interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** A handler's response as stored, and the refusal it came from when it was a 4xx. */
interface Captured {
  response: CapturedResponse;
  failure: AppError | null;
}

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
 * A route with `commitStaged` (the consent write) holds no transaction across its handler, so it can
 * share a group commit with concurrent requests: the handler stages its writes (in
 * `request.unitOfWork`), and they commit with the record in one statement before the answer. A key
 * already stored, or one a concurrent request is committing, is found taken by that insert (its
 * staged writes are dropped) and the first response is replayed: no 409 on this path.
 */
export function installIdempotency(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; docsUrl: string },
) {
  const { store, clock, docsUrl } = deps;
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('unitOfWork', null);
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
    const commitStaged = config.idempotency ? config.idempotency.commitStaged : undefined;
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
      return runIdempotent(this, original, request, reply, await ownerOf(request), key, commitStaged);
    } as never;
  });

  async function runIdempotent(
    instance: FastifyInstance,
    handler: RouteHandlerMethod,
    request: FastifyRequest,
    reply: FastifyReply,
    owner: IdempotencyOwner,
    key: string,
    commitStaged: RouteIdempotency['commitStaged'],
  ) {
    const recordKey = { organizationId: owner.organizationId, scope: owner.scope, key };
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const run = () => capture(request, () => runCapturing(instance, handler, request, reply));
    const recordOf = (outcome: Captured, now: Date) =>
      storedRecord(recordKey, fingerprint, owner, request.id, outcome.response, now);

    if (commitStaged) {
      // No transaction spans the handler: its writes are staged, then committed with the record. No
      // read first: the commit's insert of the record finds a stored key (taken), which is replayed.
      const unit = new UnitOfWork();
      request.unitOfWork = unit;
      let outcome: Captured;
      try {
        outcome = await run();
      } finally {
        request.unitOfWork = null;
      }
      // A refused request stages nothing that may commit: only its problem is stored.
      const staged = outcome.failure ? new UnitOfWork() : unit;
      for (let attempt = 0; ; attempt++) {
        const now = clock.now();
        if ((await commitStaged(staged, recordOf(outcome, now))) === 'stored') break;
        const winner = await idempotencyRepo.find(store.db, recordKey);
        if (winner && winner.expiresAt > now) return replay(reply, winner, fingerprint, owner, key);
        // Expired but not yet purged (or just purged): the key is free again; commit once more.
        if (attempt > 0) throw new Error('an Idempotency-Key reported taken has no live record');
        if (winner) await store.tx((tx) => idempotencyRepo.removeExpired(tx, recordKey, now));
      }
      return answer(reply, outcome);
    }

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
      await idempotencyRepo.insert(tx, recordOf(outcome, now));
      return { stored: null, fresh: outcome };
    });

    if (result.stored) return replay(reply, result.stored, fingerprint, owner, key);
    return answer(reply, result.fresh as Captured);
  }

  /** Runs the handler; a 4xx AppError becomes the problem response to store (5xx and others propagate). */
  async function capture(request: FastifyRequest, fn: () => Promise<CapturedResponse>): Promise<Captured> {
    try {
      return { response: await fn(), failure: null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return {
        failure: error,
        response: {
          status: error.status,
          headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...problemHeaders(error) },
          body: JSON.stringify(problemBody(request, error, docsUrl)),
        },
      };
    }
  }

  /** Sends a fresh outcome; a refusal goes through the error handler, which sends the same problem that was stored. */
  function answer(reply: FastifyReply, outcome: Captured) {
    if (outcome.failure) throw outcome.failure;
    return send(reply, outcome.response);
  }

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
}

/**
 * Runs the route's handler and returns the response it produced, serialized the way Fastify would
 * (the route's response schema for the status), without sending it: it is sent after the commit.
 * A handler may return its payload or call reply.send; both are captured.
 */
async function runCapturing(
  instance: FastifyInstance,
  handler: RouteHandlerMethod,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CapturedResponse> {
  let sent: { payload: unknown } | null = null;
  const capture = reply as unknown as {
    send: (payload?: unknown) => FastifyReply;
    then: (fulfilled?: () => void) => void;
  };
  capture.send = (payload?: unknown) => {
    sent = { payload };
    return reply;
  };
  // A reply is a thenable that settles once the response has gone out. A handler that returns
  // `reply.code(204).send()` hands its promise that thenable, which would wait for a send this
  // capture holds back until after the commit: the request then hung, inside its transaction. While
  // capturing, the reply settles at once.
  // biome-ignore lint/suspicious/noThenProperty: shadowing the reply's own thenable is the point here.
  capture.then = (fulfilled) => fulfilled?.();
  let returned: unknown;
  try {
    returned = await handler.call(instance, request, reply);
  } finally {
    delete (capture as { send?: unknown }).send;
    delete (capture as { then?: unknown }).then;
  }
  const payload = sent ? (sent as { payload: unknown }).payload : returned === reply ? undefined : returned;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  if (payload === undefined || payload === null) return { status: reply.statusCode, headers, body: null };
  const type = reply.getHeader('content-type');
  if (typeof payload === 'string') {
    headers['content-type'] = type ? String(type) : 'text/plain; charset=utf-8';
    return { status: reply.statusCode, headers, body: payload };
  }
  headers['content-type'] = type ? String(type) : JSON_TYPE;
  return { status: reply.statusCode, headers, body: serialized(reply, payload, headers['content-type']) };
}

/**
 * The body as Fastify would serialize it. `reply.serialize` looks a response schema up by status
 * only: where the route declares it per media type (`content: {'application/json': …}`, the form
 * the OpenAPI document needs), it finds that map instead of a function, so look it up by media
 * type as Fastify's own send does.
 */
function serialized(reply: FastifyReply, payload: unknown, contentType: string): string {
  const status = String(reply.statusCode);
  const byStatus: unknown = reply.getSerializationFunction(status);
  if (byStatus === undefined || typeof byStatus === 'function') return String(reply.serialize(payload));
  const byType = reply.getSerializationFunction(status, contentType.split(';')[0].trim());
  return typeof byType === 'function' ? byType(payload as Record<string, unknown>) : JSON.stringify(payload);
}

/** Sends a captured response as is (a string body with a JSON type is not serialized again). */
function send(reply: FastifyReply, response: CapturedResponse) {
  reply.code(response.status).headers(response.headers);
  return response.body === null ? reply.send() : reply.send(response.body);
}
