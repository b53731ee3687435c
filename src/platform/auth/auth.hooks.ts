import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError } from '../http/errors.ts';
import { ipPrefix } from '../http/ip.ts';
import { refusedKeyDetail, schemeDetail } from './authorization-header.ts';
import type { Principal } from './principal.ts';
import type { Scope } from './scopes.ts';

/** What a route says about access: a scope an API key must hold, or `public` (no key). */
export type RouteAuth = { scope: Scope } | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface RouteTableEntry {
  method: string;
  url: string;
  auth: RouteAuth;
}

/** The audit context of an authenticated request. */
export function auditContextOf(request: FastifyRequest) {
  const principal = request.principal;
  if (!principal) throw new Error('auditContextOf called on an unauthenticated request');
  return {
    organizationId: principal.organizationId,
    environment: principal.environment,
    actor:
      principal.type === 'member'
        ? { type: 'member' as const, id: principal.memberId }
        : { type: 'api_key' as const, id: principal.keyId },
    requestId: request.id,
    ipPrefix: ipPrefix(request.ip),
  };
}

/** The principal of an authenticated route's request (set by the auth hook before the handler). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('principalOf called on an unauthenticated request');
  return request.principal;
}

/**
 * `Authorization: Bearer <key>` (RFC 6750 section 2.1). The scheme is case-insensitive (RFC 9110
 * section 11.1), so `bearer` and `BEARER` are accepted; the key is one token with nothing after it.
 */
export const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/**
 * Every /v1 route must declare its auth in `config.auth`; starting the app fails otherwise, so no
 * route can be public by omission. Authenticated routes get, in order: authentication, the scope
 * check, then `afterAuth` hooks (the rate limit), all before the body is parsed or validated.
 */
export function installAuth(
  app: FastifyInstance,
  options: {
    authenticate: (secret: string) => Promise<Principal | null>;
    /**
     * The console's way in, tried only when there is no Authorization header: the principal of the
     * request's session cookie, or null when it has none (then the usual 401). It throws itself for
     * a dead session or a state change without its CSRF token. Bearer keys never reach it.
     */
    authenticateSession?: (request: FastifyRequest) => Promise<Principal | null>;
    afterAuth?: onRequestAsyncHookHandler[];
    routeTable: RouteTableEntry[];
  },
) {
  app.decorateRequest('principal', null);

  const authenticate: onRequestAsyncHookHandler = async (request, reply) => {
    const header = request.headers.authorization;
    let principal: Principal | null;
    if (header) {
      const match = BEARER.exec(header);
      if (!match) throw new AppError('invalid_api_key', schemeDetail(header));
      principal = await options.authenticate(match[1]);
      if (!principal) throw new AppError('invalid_api_key', refusedKeyDetail(match[1]));
    } else {
      principal = (await options.authenticateSession?.(request)) ?? null;
      if (!principal)
        throw new AppError('authentication_required', 'Send an API key as Authorization: Bearer <key>.');
    }
    request.principal = principal;
    const { scope } = request.routeOptions.config.auth as { scope: Scope };
    if (!principal.scopes.includes(scope)) {
      // A refused request still counts against the caller's limit (and gets its headers): a flood
      // of requests the key may not make turns into 429s instead of a 403 (and an audit write) each.
      for (const hook of options.afterAuth ?? []) await hook.call(app, request, reply);
      throw new AppError('insufficient_scope', `This operation needs the ${scope} scope.`, {
        extra: { requiredScope: scope },
      });
    }
  };

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth) {
      if (route.url.startsWith('/v1'))
        throw new Error(`route ${route.method} ${route.url} declares no config.auth`);
      return;
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD') options.routeTable.push({ method, url: route.url, auth });
    }
    if (auth === 'public') return;
    const existing = route.onRequest
      ? Array.isArray(route.onRequest)
        ? route.onRequest
        : [route.onRequest]
      : [];
    route.onRequest = [authenticate, ...(options.afterAuth ?? []), ...existing] as never;
  });
}
