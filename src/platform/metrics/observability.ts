import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { describeError } from '../db/pg-errors.ts';
import { AppError } from '../http/errors.ts';
import type { Metrics } from './metrics.ts';

/** The route label of a request that matched no route: the raw URL would be unbounded (and may hold ids). */
export const UNMATCHED_ROUTE = 'unmatched';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of the presented bearer token with METRICS_TOKEN. */
export function tokenMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

/** Pino's level check; Fastify's no-op logger (logging off) has none and drops every line anyway. */
function infoEnabled(logger: FastifyBaseLogger): boolean {
  const log = logger as { isLevelEnabled?: (level: string) => boolean };
  return log.isLevelEnabled ? log.isLevelEnabled('info') : false;
}

/** A finished request, as its log line and metrics observation need it. */
export interface CompletedRequest {
  method: string;
  /** The route template, or UNMATCHED_ROUTE. */
  route: string;
  statusCode: number;
  durationMs: number;
  /** What the `req` log serializer reads (platform/http/logging.ts). */
  req: unknown;
  /** Set when `log` is not already the request's child logger (which binds it). */
  reqId?: string;
  /** The caller's ids, never a secret. */
  caller?: Record<string, string>;
}

/**
 * The one log line and the one metrics observation of every request: called by the onResponse
 * hook below, and by the routes answered before Fastify (platform/http/fast-path-server.ts).
 */
export function recordCompletion(metrics: Metrics, log: FastifyBaseLogger, done: CompletedRequest) {
  const { method, route, statusCode, durationMs } = done;
  metrics.observeRequest({ method, route, status: statusCode }, durationMs / 1000);
  // Building the line costs even when the level drops it (benchmarks run with LOG_LEVEL=silent).
  if (infoEnabled(log))
    log.info(
      {
        ...(done.reqId === undefined ? {} : { reqId: done.reqId }),
        req: done.req,
        route,
        statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
        ...done.caller,
      },
      'request completed',
    );
}

/** Who called, for the log line: ids only, never the key's secret or the session token. */
function callerOf(request: FastifyRequest): Record<string, string> | undefined {
  const principal = request.principal;
  if (!principal) return undefined;
  return principal.type === 'api_key'
    ? { organizationId: principal.organizationId, keyId: principal.keyId }
    : { organizationId: principal.organizationId, memberId: principal.memberId };
}

/**
 * One log line and one metrics observation per request, and `GET /metrics` (Prometheus text,
 * hidden from OpenAPI, outside /v1 so API keys and their rate limits do not apply). The app runs
 * with `disableRequestLogging`, so the line below is the only per-request line: it carries the
 * route template, the status and the duration, plus the caller's organization and key ids. The
 * URL goes through the `req` serializer, which redacts secret query values (a raw subjectId).
 */
export function installObservability(
  app: FastifyInstance,
  options: { metrics: Metrics; token: string | null },
) {
  const { metrics, token } = options;

  app.addHook('onResponse', (request, reply, done) => {
    recordCompletion(metrics, request.log, {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      statusCode: reply.statusCode,
      durationMs: reply.elapsedTime,
      req: request,
      caller: callerOf(request),
    });
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== null && !tokenMatches(request.headers.authorization, token)) {
      throw new AppError(
        'authentication_required',
        'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.',
        {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        },
      );
    }
    const text = await metrics.scrape((error) =>
      request.log.warn({ err: describeError(error) }, 'metrics: database gauges unavailable'),
    );
    return reply.header('Content-Type', metrics.contentType).header('Cache-Control', 'no-store').send(text);
  });
}
