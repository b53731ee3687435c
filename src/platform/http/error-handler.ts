import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError, isDatabaseUnavailable, pgErrorOf } from '../db/pg-errors.ts';
import { BODY_LIMIT_BYTES, describeBodyLimit } from './body-limits.ts';
import { AppError } from './errors.ts';
import { stackFrames } from './logging.ts';
import { sendProblem } from './problem.ts';
import { requestIdFor } from './request-id.ts';
import { type RouteParams, requestLineFault } from './request-line.ts';
import { fieldErrors, validationDetail } from './validation.ts';

/** 413 payload_too_large, saying the route's limit (body-limits.ts). */
function tooLarge(bodyLimit: number): AppError {
  const limit = describeBodyLimit(bodyLimit);
  return new AppError(
    'payload_too_large',
    `The body is larger than ${limit}, this endpoint's limit; send at most ${limit}.`,
  );
}

/** Fastify's own errors (body parsing, limits) as codes of our table (errors.ts). */
function fromFastifyError(error: FastifyError, bodyLimit: number): AppError | null {
  if (error.validation) {
    const errors = fieldErrors(error.validation as never, error.validationContext);
    return new AppError('validation_failed', validationDetail(error.validation as never, errors), {
      errors,
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(bodyLimit);
    case 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE':
      return new AppError(
        'malformed_request',
        'A QUERY request must say what its body is (RFC 10008): send Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('malformed_request', 'The body is empty but its Content-Type says JSON.');
  }
  if (error.statusCode === 413) return tooLarge(bodyLimit);
  if (error.statusCode === 415)
    return new AppError('unsupported_media_type', 'Send the body as application/json.');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('malformed_request', 'The request could not be parsed (is the body valid JSON?).');
  }
  return null;
}

/**
 * An error of the client's own request: Fastify gives what it raises while reading the request a 4xx
 * statusCode, including the ECONNRESET "aborted" of an upload the client cut short. A database
 * error never carries one, so only errors without it are read as database errors below.
 */
function isRequestError(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** `bodyLimit`: the limit of the route the error is from (its 413 says it). */
export function toAppError(error: unknown, bodyLimit = BODY_LIMIT_BYTES): AppError {
  if (error instanceof AppError) return error;
  if (!isRequestError(error) && isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'The database is unreachable; try again shortly.', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  return (
    fromFastifyError(error as FastifyError, bodyLimit) ??
    new AppError('internal_error', 'Something went wrong on our side.', { cause: error })
  );
}

/**
 * Fastify's `frameworkErrors` option: errors its router raises before any route or hook runs (a
 * badly percent-encoded path, a path parameter over the router's length limit). Without it Fastify
 * answers in its own JSON shape with no X-Request-Id; with it they are problems like every other.
 */
export function frameworkErrors(docsUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    const appError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('validation_failed', 'A path parameter is too long.', {
            errors: [{ path: 'path:/', message: 'is too long' }],
          })
        : new AppError('malformed_request', 'The request path is not a valid URL.');
    return sendProblem(request, reply, appError, docsUrl);
  };
}

const OTHER_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * What a request no route takes gets: 405 with Allow when the path has routes of other methods,
 * else 404. Also for a request Fastify refused before its (not found) route ran: a QUERY (RFC
 * 10008) without Content-Type is refused so by Fastify whatever the path, but no route here takes
 * QUERY, and its problem is the method, not a body that could not be parsed.
 */
function noRouteProblem(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): AppError {
  const path = request.url.split('?')[0];
  const allowed = OTHER_METHODS.filter((method) => app.findRoute({ method: method as 'GET', url: path }));
  if (allowed.length > 0) {
    reply.header('Allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
    return new AppError(
      'method_not_allowed',
      `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
    );
  }
  return new AppError('not_found', `No route ${request.method} ${path}.`);
}

export function installErrorHandling(
  app: FastifyInstance,
  options: { docsUrl: string; onForbidden?: (request: FastifyRequest, error: AppError) => Promise<void> },
) {
  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError =
      request.is404 && (error as FastifyError | null)?.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE'
        ? noRouteProblem(app, request, reply)
        : toAppError(error, request.routeOptions.bodyLimit);
    if (appError.status >= 500) {
      // describeError and the stack's frames, never the error itself or its message: a failed
      // query's message lists its parameters (a site key, a subject's pseudonym), and may span
      // lines, so a stack's second line can be "params: …".
      const pg = pgErrorOf(error);
      request.log.error(
        {
          error: describeError(error),
          ...(pg ? { sqlstate: pg.code, ...(pg.constraint ? { constraint: pg.constraint } : {}) } : {}),
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          stack: stackFrames(error),
          code: appError.code,
        },
        'request failed',
      );
    }
    if (appError.status === 403 && options.onForbidden) {
      await options
        .onForbidden(request, appError)
        .catch((e) => request.log.error({ error: describeError(e) }, 'audit failed'));
    }
    return sendProblem(request, reply, appError, options.docsUrl);
  });

  app.setNotFoundHandler(async (request, reply) =>
    sendProblem(request, reply, noRouteProblem(app, request, reply), options.docsUrl),
  );
}

/**
 * Runs `then` once the responses to the requests parsed before the malformed one are written. On a
 * pipelined connection ("valid request, malformed request" in one packet) the parser fails while the
 * first request is still being answered; writing the 400 (and closing) at once would discard that
 * answer although its change committed. Node assigns the next queued response to the socket when
 * one finishes, so this waits for each in turn (like Node's own default, which checks
 * `socket._httpMessage` before writing its 400).
 */
function afterResponsesInFlight(socket: Duplex, then: () => void) {
  const response = (
    socket as {
      _httpMessage?: { writableFinished?: boolean; req?: { complete?: boolean } } & NodeJS.EventEmitter;
    }
  )._httpMessage;
  // A request still being read is the one the error is about (an upload cut short at the end of the
  // stream): nothing to wait for, its answer could only come after a body that never will.
  if (!response || response.writableFinished || response.req?.complete === false) {
    then();
    return;
  }
  const next = () => afterResponsesInFlight(socket, then);
  response.once('finish', next);
  // A client gone meanwhile: nothing to write, and nothing left waiting.
  response.once('close', () => {
    response.removeListener('finish', next);
    if (!response.writableFinished) socket.destroy();
  });
}

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser rejects before Fastify sees them (a
 * control character in a header, a malformed request line, headers over the size limit). They get
 * the same problem shape and a request id as every other error, written to the socket directly.
 */
export function clientErrorHandler(docsUrl: string, routeParams?: RouteParams) {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const fault = tooLarge
      ? null
      : requestLineFault((error as { rawPacket?: Buffer }).rawPacket, routeParams);
    const requestId = requestIdFor({ headers: {} } as never);
    const body = JSON.stringify({
      type: `${docsUrl}/errors/malformed_request`,
      title: 'Malformed request',
      status,
      code: 'malformed_request',
      detail: tooLarge
        ? 'The request headers are too large.'
        : (fault?.detail ?? 'The request could not be parsed.'),
      instance: fault?.instance ?? '',
      requestId,
      ...(fault?.errors && { errors: fault.errors }),
    });
    const answer =
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body;
    afterResponsesInFlight(socket, () => {
      if (socket.writable) socket.end(answer);
      else socket.destroy();
    });
  };
}
