import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
function infoEnabled(request: FastifyRequest): boolean {
  const log = request.log as { isLevelEnabled?: (level: string) => boolean };
  return log.isLevelEnabled ? log.isLevelEnabled('info') : false;
}

/** Who called, for the log line: ids only, never the key's secret or the session token. */
function callerOf(request: FastifyRequest) {
  const principal = request.principal;
  if (!principal) return {};
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
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const durationMs = reply.elapsedTime;
    metrics.observeRequest({ method: request.method, route, status: reply.statusCode }, durationMs / 1000);
    // Building the line costs even when the level drops it (benchmarks run with LOG_LEVEL=silent).
    if (infoEnabled(request))
      request.log.info(
        {
          req: request,
          route,
          statusCode: reply.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ...callerOf(request),
        },
        'request completed',
      );
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
      request.log.warn({ err: (error as Error).message }, 'metrics: database gauges unavailable'),
    );
    return reply.header('Content-Type', metrics.contentType).header('Cache-Control', 'no-store').send(text);
  });
}
