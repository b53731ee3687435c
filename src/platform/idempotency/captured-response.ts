import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { AppError } from '../http/errors.ts';
import { PROBLEM_CONTENT_TYPE, problemBody, problemHeaders } from '../http/problem.ts';

/**
 * Responses as the idempotency layer stores and replays them: what a handler answered, byte for
 * byte, captured before it is sent (so that it is sent only after the key's record committed).
 */

/** Response headers a replay repeats; the rate-limit and request-id headers are the replay's own. */
const KEPT_HEADERS = ['location', 'content-location'];
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A response as stored: what the client got, byte for byte. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** A handler's response as stored, and the refusal it came from when it was a 4xx. */
export interface Captured {
  response: CapturedResponse;
  failure: AppError | null;
}

/** A refusal that is stored under the key like an answer: a 4xx AppError (a 5xx or a bug is not). */
export const isRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && error.status < 500;

/** The problem response a refusal is sent as, as stored. */
export function refusalResponse(request: FastifyRequest, error: AppError, docsUrl: string): CapturedResponse {
  return {
    status: error.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...problemHeaders(error) },
    body: JSON.stringify(problemBody(request, error, docsUrl)),
  };
}

/** Runs the handler; a 4xx AppError becomes the problem response to store (5xx and others propagate). */
export async function capture(
  request: FastifyRequest,
  docsUrl: string,
  fn: () => Promise<CapturedResponse>,
): Promise<Captured> {
  try {
    return { response: await fn(), failure: null };
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return { failure: error, response: refusalResponse(request, error, docsUrl) };
  }
}

/** A JSON payload with `status`, as the route's response schema serializes it. */
export function jsonResponse(reply: FastifyReply, status: number, payload: unknown): CapturedResponse {
  reply.code(status);
  return { status, headers: { 'content-type': JSON_TYPE }, body: serialized(reply, payload, JSON_TYPE) };
}

/**
 * Runs the route's handler and returns the response it produced, serialized the way Fastify would
 * (the route's response schema for the status), without sending it: it is sent after the commit.
 * A handler may return its payload or call reply.send; both are captured.
 */
export async function runCapturing(
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
export function send(reply: FastifyReply, response: CapturedResponse) {
  reply.code(response.status).headers(response.headers);
  return response.body === null ? reply.send() : reply.send(response.body);
}
