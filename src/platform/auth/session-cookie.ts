import type { FastifyRequest } from 'fastify';

/**
 * The console's session cookie (docs/decisions/console.md) and the header that proves a request is the
 * console's.
 */
export const SESSION_COOKIE = 'cs_session';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The value of the session cookie, or null. A tiny parser for one name (RFC 6265 cookie-string),
 * rather than a cookie plugin: nothing else in the service reads cookies.
 */
export function sessionTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = pair.slice(eq + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}
