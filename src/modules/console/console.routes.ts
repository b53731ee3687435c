import { Type } from '@sinclair/typebox';
import type { FastifyRequest, onSendHookHandler } from 'fastify';
import { apiDate } from '../../platform/http/dates.ts';
import { ipPrefix, rateLimitClient } from '../../platform/http/ip.ts';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { enforceLimit } from '../../platform/rate-limit/rate-limit.hooks.ts';
import type { RateLimiter } from '../../platform/rate-limit/rate-limiter.ts';
import { clearSessionCookie, requireSession, sessionEnded, setSessionCookie } from './session-auth.ts';
import { csrfTokenFor, type SessionsService, type SessionView } from './sessions.service.ts';

const SessionData = Type.Object({
  member: Type.Object({ id: Type.String(), email: Type.String(), role: Type.String() }),
  organization: Type.Object({ id: Type.String(), name: Type.String() }),
  environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  scopes: Type.Array(Type.String()),
  csrfToken: Type.String(),
  expiresAt: Type.String(),
});

const problems = { 400: Problem, 401: Problem, 422: Problem, 429: Problem };

/**
 * The console's session endpoints (docs/decisions/console.md). They live outside /v1: they are the console's
 * own plumbing, not part of the public API, and hidden from the OpenAPI document. Everything
 * else the console does goes through the /v1 API with the session cookie.
 */
export function consoleRoutes(
  app: App,
  deps: { sessions: SessionsService; limiter: RateLimiter; signInPerMinute: number; secureCookies: boolean },
) {
  const { sessions, limiter, signInPerMinute, secureCookies } = deps;
  const meta = (request: FastifyRequest) => ({ requestId: request.id, ipPrefix: ipPrefix(request.ip) });

  function present(token: string, view: SessionView, sessionsService: SessionsService) {
    const principal = sessionsService.principalOf(view);
    return envelope({
      member: { id: view.session.memberId, email: view.email, role: view.role },
      organization: { id: view.session.organizationId, name: view.organizationName },
      environment: view.session.environment,
      scopes: principal.scopes,
      csrfToken: csrfTokenFor(token),
      expiresAt: apiDate(view.session.expiresAt) as string,
    });
  }

  async function signedIn(request: FastifyRequest) {
    const found = await requireSession(sessions, request);
    if (!found) throw sessionEnded();
    return found;
  }

  // Session answers are never cached. A route hook, not a global one: an onSend hook on the app
  // would run on every API response.
  const noStore: onSendHookHandler = (_request, reply, payload, done) => {
    reply.header('Cache-Control', 'no-store');
    done(null, payload);
  };

  app.post(
    '/console/api/sign-in',
    {
      onSend: noStore,
      schema: {
        hide: true,
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 320 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
            organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(SessionData), ...problems },
      },
      // Counted before the body is validated, like every other limit, so guessing cannot go faster;
      // per client as the public limit counts one (an IPv6 /64), so new addresses do not either.
      onRequest: async (request, reply) => {
        await enforceLimit(limiter, reply, `sign-in:ip:${rateLimitClient(request.ip)}`, signInPerMinute);
      },
    },
    async (request, reply) => {
      const email = request.body.email.trim().toLowerCase();
      await enforceLimit(limiter, reply, `sign-in:email:${email}`, signInPerMinute);
      const { token, view } = await sessions.signIn({ ...request.body, email }, meta(request));
      setSessionCookie(reply, token, secureCookies);
      return present(token, view, sessions);
    },
  );

  app.get(
    '/console/api/session',
    { onSend: noStore, schema: { hide: true, response: { 200: Envelope(SessionData), ...problems } } },
    async (request) => {
      const { token, view } = await signedIn(request);
      return present(token, view, sessions);
    },
  );

  app.post(
    '/console/api/environment',
    {
      onSend: noStore,
      schema: {
        hide: true,
        body: Type.Object(
          { environment: Type.Union([Type.Literal('test'), Type.Literal('live')]) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(SessionData), ...problems },
      },
    },
    async (request) => {
      const { token, view } = await signedIn(request);
      await sessions.setEnvironment(view, request.body.environment);
      return present(token, view, sessions);
    },
  );

  app.post(
    '/console/api/sign-out',
    { onSend: noStore, schema: { hide: true, response: { 204: Type.Null(), ...problems } } },
    async (request, reply) => {
      const { view } = await signedIn(request);
      await sessions.signOut(view, meta(request));
      clearSessionCookie(reply, secureCookies);
      return reply.code(204).send(null);
    },
  );
}
