import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, ERROR_CODES } from './errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/**
 * The RFC 9457 body for an AppError (README "API conventions"). Pure, so that the idempotency layer can store
 * byte for byte the problem a client received and replay it.
 */
export function problemBody(request: FastifyRequest, error: AppError, docsUrl: string) {
  const { title, status } = ERROR_CODES[error.code];
  const body: Record<string, unknown> = {
    type: `${docsUrl}/errors/${error.code}`,
    title,
    status,
    code: error.code,
    detail: error.detail,
    instance: error.options.instance ?? request.url.split('?')[0],
    requestId: request.id,
    ...error.options.extra,
  };
  if (error.options.errors) body.errors = error.options.errors;
  return body;
}

/** The headers a problem response carries besides Content-Type. */
export function problemHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = { ...error.options.headers };
  if (error.status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return headers;
}

/** Sends an RFC 9457 problem for an AppError. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError, docsUrl: string) {
  return reply
    .code(error.status)
    .headers(problemHeaders(error))
    .type(PROBLEM_CONTENT_TYPE)
    .serializer(JSON.stringify)
    .send(problemBody(request, error, docsUrl));
}
