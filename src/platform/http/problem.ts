import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, ERROR_CODES } from './errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/**
 * What a 404 of an authenticated request adds: that the caller's environment sees only its own
 * data. The likeliest cause of a 404 on an id that exists is a test id asked for with a live key
 * (or the reverse); the sentence is the same whether or not the id exists anywhere, so it tells
 * no caller about another environment's, or another organization's, resources.
 */
function environmentNote(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return '';
  const env = principal.environment;
  const other = env === 'test' ? 'live' : 'test';
  const who =
    principal.type === 'api_key'
      ? `This is a ${env} key (svc_${env}_…)`
      : `This console session is in the ${env} environment`;
  return ` ${who}: test keys see only test data and live keys only live data, so a resource made with a ${other} key is not found here; use a ${other} key (svc_${other}_…) for it.`;
}

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
    detail: error.code === 'not_found' ? error.detail + environmentNote(request) : error.detail,
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
