import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/principal.ts';
import { CSRF_HEADER, SESSION_COOKIE, sessionTokenOf } from '../../platform/auth/session-cookie.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { SessionsService, SessionView } from './sessions.service.ts';
import { SESSION_ABSOLUTE_MS } from './sessions.service.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const sessionEnded = () =>
  new AppError(
    'authentication_required',
    'The console session has ended (signed out or expired); sign in again.',
  );

/**
 * A missing or wrong CSRF token is a 401 authentication_required (the closed code table has no
 * CSRF code): for a state change the session is proven by the cookie and the token together, so a
 * cookie alone does not authenticate it. 403 insufficient_scope would send people looking for scopes.
 */
export const csrfMissing = () =>
  new AppError(
    'authentication_required',
    `A console request that changes something must send its session's CSRF token in ${CSRF_HEADER}.`,
  );

/**
 * The session of a request's cookie, checked: null without a cookie; a 401 for a dead session, or
 * for a state change without the session's CSRF token (double submit bound to the session).
 */
export async function requireSession(
  sessions: SessionsService,
  request: FastifyRequest,
): Promise<{ token: string; view: SessionView } | null> {
  const token = sessionTokenOf(request);
  if (!token) return null;
  const view = await sessions.find(token);
  if (!view) throw sessionEnded();
  if (!SAFE_METHODS.has(request.method) && !sessions.csrfMatches(token, request.headers[CSRF_HEADER]))
    throw csrfMissing();
  return { token, view };
}

/** installAuth's second authenticator: a member's session on the /v1 API. */
export function sessionAuthenticator(sessions: SessionsService) {
  return async (request: FastifyRequest): Promise<Principal | null> => {
    const found = await requireSession(sessions, request);
    return found ? sessions.principalOf(found.view) : null;
  };
}

/** HttpOnly, SameSite=Strict, Secure when the service is served over https. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean) {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${SESSION_ABSOLUTE_MS / 1000}`];
  if (secure) attributes.push('Secure');
  reply.header('Set-Cookie', `${SESSION_COOKIE}=${token}; ${attributes.join('; ')}`);
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean) {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'];
  if (secure) attributes.push('Secure');
  reply.header('Set-Cookie', `${SESSION_COOKIE}=; ${attributes.join('; ')}`);
}
