import type { FastifyRequest } from 'fastify';
import { describeError, pgErrorOf } from '../db/pg-errors.ts';

/**
 * Query parameters whose values never reach a log line: `subjectId` is a visitor's raw id (an
 * evidence and consent-state filter) and `accountId` a signed-in visitor's account id (a
 * consent-state filter), which the service must neither store nor log; `token` is a visitor
 * receipt's capability.
 */
const SECRET_QUERY_PARAMS = new Set(['subjectid', 'accountid', 'token']);

/** A parameter's name as the query parser reads it ('+' is a space, %XX decoded); null if it cannot be. */
function decodedName(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

/**
 * Whether a raw parameter name is a secret one once decoded, as the route reads it: `to%6Ben` is
 * `token`. Matched without case, and with any `[…]` suffix; a name that does not decode counts as
 * secret (redacting a harmless value costs nothing, logging a secret cannot be undone).
 */
function isSecretName(raw: string): boolean {
  const name = decodedName(raw);
  if (name === null) return true;
  return SECRET_QUERY_PARAMS.has(name.replace(/\[.*$/, '').trim().toLowerCase());
}

/** A URL as logged: secret query values replaced by `[redacted]`, judged on the decoded names. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const hashStart = url.indexOf('#', queryStart);
  const end = hashStart === -1 ? url.length : hashStart;
  const pairs = url.slice(queryStart + 1, end).split('&');
  const redacted = pairs.map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    return equals !== -1 && isSecretName(name) ? `${name}=[redacted]` : pair;
  });
  return `${url.slice(0, queryStart + 1)}${redacted.join('&')}${url.slice(end)}`;
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

/** The `at …` lines of an error's stack: its message lines are dropped (drizzle's list the parameters). */
export function stackFrames(error: unknown): string | undefined {
  const stack = error instanceof Error ? error.stack : undefined;
  if (!stack) return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.slice(0, 8).join('\n') : undefined;
}

/**
 * What the logger writes for an error under `err`, in place of pino's own serializer, which
 * copies every property: a failed query's `params` and `query` (a site key, a subject's
 * pseudonym), the message drizzle builds from them. Kept: the type, the description without
 * values (describeError: SQLSTATE, constraint, table, column), the SQLSTATE and constraint as
 * fields, and the stack's frames.
 */
export function errorLogSerializer(error: unknown) {
  if (!(error instanceof Error)) return { message: describeError(error) };
  const pg = pgErrorOf(error);
  return {
    type: error.name,
    message: describeError(error),
    ...(pg ? { sqlstate: pg.code, ...(pg.constraint ? { constraint: pg.constraint } : {}) } : {}),
    stack: stackFrames(error),
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
