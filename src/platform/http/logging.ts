import type { FastifyRequest } from 'fastify';

/**
 * Query parameters whose values never reach a log line: `subjectId` is a visitor's raw id (contract
 * §6 filter), which the service must neither store nor log; `token` is a visitor receipt's capability
 * (contract §17).
 */
const SECRET_QUERY_PARAMS = ['subjectId', 'token'];
const SECRET_PARAM = new RegExp(`([?&](?:${SECRET_QUERY_PARAMS.join('|')})=)[^&#]*`, 'gi');

/** A URL as logged: secret query values replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAM, '$1[redacted]');
}

/** What the serializer reads: a FastifyRequest, or the same fields of a request answered before Fastify. */
export type LoggedRequest = Pick<FastifyRequest, 'method' | 'url' | 'host' | 'ip'> & {
  socket?: { remotePort?: number };
};

/** Fastify's own request serializer (method, url, host, address), with the URL redacted. Bodies are never logged. */
export function requestLogSerializer(request: LoggedRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The app's logger options: `false` logs nothing; an object given by the caller (tests pass a
 * level and a stream) is laid over the defaults, so redaction and serializers always apply.
 */
export function loggerOptions(given: boolean | object | undefined, defaults: Record<string, unknown>) {
  if (given === false) return false;
  if (given === undefined || given === true) return defaults;
  return { ...defaults, ...given };
}
