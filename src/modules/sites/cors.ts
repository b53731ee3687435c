import type { FastifyReply } from 'fastify';
import { originMatches } from '../channels/origins.service.ts';
import { acceptsLocalPage } from './page-origins.ts';
import type { Site } from './sites.service.ts';

export const ALLOWED_METHODS = 'POST, OPTIONS';
export const ALLOWED_HEADERS = 'content-type, idempotency-key, x-request-id';
export const EXPOSED_HEADERS = 'x-request-id, idempotent-replayed';
/** How long a browser may reuse a preflight answer (Chrome caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * The browser's Origin, if it is one of the site's active origins (wildcards honoured) or, on a test
 * channel, a page on localhost (page-origins.ts); else null.
 */
export function allowedOrigin(site: Site, header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || header === '') return null;
  if (acceptsLocalPage(site, header)) return header;
  return site.origins.some((allowed) => originMatches(allowed, header)) ? new URL(header).origin : null;
}

/**
 * CORS headers for a registered origin only: an unregistered one gets none, so the browser keeps the
 * response from the page. `Vary: Origin` is set on every answer that depends on the Origin (caches
 * must not hand one origin's answer to another).
 */
export function corsHeaders(origin: string | null): Record<string, string> {
  if (origin === null) return { vary: 'Origin' };
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
  };
}

export function setCorsHeaders(reply: FastifyReply, origin: string | null) {
  reply.headers(corsHeaders(origin));
}

export function setPreflightHeaders(reply: FastifyReply, origin: string) {
  setCorsHeaders(reply, origin);
  reply.header('Access-Control-Allow-Methods', ALLOWED_METHODS);
  reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
}
