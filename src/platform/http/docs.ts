import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_CODES, type ErrorCode } from './errors.ts';
import { completeDocument, describeRoute } from './openapi.ts';
import type { App } from './types.ts';

/** What each code means to a client, on its /docs/errors/<code> page. */
const ERROR_HELP: Record<ErrorCode, string> = {
  malformed_request: 'The body could not be parsed as JSON, or the request line or headers were malformed.',
  invalid_cursor:
    'The cursor was not issued by this service for this list and this set of filters. Start again without a cursor.',
  invalid_idempotency_key:
    'The Idempotency-Key header must be 1–255 printable ASCII characters, bare or as a quoted string.',
  authentication_required: 'Send an API key as Authorization: Bearer <key>.',
  invalid_api_key: 'The API key is malformed, unknown, revoked or expired.',
  invalid_identity_token:
    'The identity token of a signed-in visitor was refused: not a JWT signed with HS256 and an active identity secret of the channel, aud not the siteKey, expired, iat in the future, exp more than 24 hours after iat, or sub missing or over 200 characters; detail says which.',
  insufficient_scope: 'The API key is valid but lacks the scope this operation needs; detail names it.',
  scope_not_allowed:
    'The requested scopes are in the catalogue but the member’s role may not hold them, or the calling key does not hold them itself.',
  origin_not_allowed:
    'The Origin of the browser request is not an active origin of the channel; on an app channel, a browser Origin is never allowed (its apps send X-Consent-App).',
  app_not_allowed:
    'The channel is an app channel: its public calls must send X-Consent-App with an active app id of the channel (POST /v1/channels/:id/apps registers one); the header was missing, or names an app that is unknown or archived (docs/guides/apps.md).',
  not_found: 'No such resource in this organization and environment, or no such route.',
  handoff_not_found:
    'The handoff token cannot be redeemed here: it is unknown, already used, expired (tokens last 120 seconds), of another site, or bound to another origin; or the visitor it was made for has no decision that still holds. One answer for all of them: start over from the page the visitor came from (docs/guides/keep-the-choice.md).',
  method_not_allowed:
    'The path exists but not with this method; the Allow header lists the methods it takes.',
  origin_duplicate: 'The origin is already registered on the channel.',
  app_duplicate: 'The app id is already an active app of the channel; archive it first to register it again.',
  purpose_duplicate: 'A purpose with this key already exists on the channel.',
  invalid_state:
    'The resource is not in a state that allows this change (for example, archiving something already archived).',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still running. Retry after it finishes.',
  export_not_ready: 'The export has not succeeded yet; poll it until its status is succeeded.',
  delivery_not_failed: 'Only a failed delivery can be redelivered.',
  evidence_not_sealed: 'The evidence event is not in a signed tree head yet; try again in a few seconds.',
  export_expired: 'The export file has expired and was deleted; request a new export.',
  payload_too_large:
    'The body is over the endpoint’s limit: 1 MiB for authenticated calls, 64 KiB for the public endpoints a visitor’s browser posts to (preferences, identity, handoffs, impressions). The problem’s detail says the limit.',
  unsupported_media_type: 'Request bodies must be application/json.',
  validation_failed:
    'The request does not match the operation’s schema or rules; `errors` lists each problem with its JSON Pointer path.',
  invalid_scopes:
    'The requested scopes include names outside the closed catalogue; `invalidScopes` lists them.',
  invalid_origin:
    'The origin must be scheme://host[:port] with http or https, without path, query, fragment or credentials.',
  invalid_destination:
    'The webhook URL is not allowed (not https for live, or it resolves to a private address).',
  unknown_purpose: 'The decisions name a purpose key the channel does not have.',
  idempotency_key_reused: 'This Idempotency-Key was already used with a different request.',
  rate_limited: 'Too many requests; wait for the number of seconds in Retry-After.',
  internal_error: 'An unexpected error on our side. Quote the requestId to support.',
  service_unavailable: 'The database is unreachable for a moment; retry after the Retry-After delay.',
  clock_skew:
    'This server’s clock differs from the database’s by more than CLOCK_SKEW_MAX_SECONDS, so the decision was not recorded at a wrong time. The operator synchronises the server’s clock (NTP); retry the same request after the Retry-After delay (the SDK does).',
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The policy of the server-rendered HTML pages: inline style only, nothing else, never framed. */
export const HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; " +
  "base-uri 'none'; form-action 'none'";

export async function installDocs(app: App) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'consent-service API',
        version: '1',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description:
          'Consent management: channels (purposes, origins, technologies, regions, config versions), the public site ' +
          'endpoints the banner calls (config, decisions, impressions, visitor receipts), evidence and its verifiable ' +
          'ledger, consent state of a subject, consent analytics, exports, tracker scans, webhooks, API keys and audit logs.',
      },
      // Relative: the API is where the document was loaded from, so "Try it out" in the reference
      // calls the same address the reader opened (127.0.0.1 or localhost alike, never cross-origin).
      servers: [{ url: '/', description: 'This service (the address this document was loaded from)' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_test_… or svc_live_… API key' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: describeRoute,
    transformObject: completeDocument as never,
    // Component schemas named by their $id (Channel, Problem…), not def-0…: generated clients use these names.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  // HTML pages (these docs, the ledger's auditor page, error pages) are never framed and run no
  // script; a page that needs more (the console, swagger-ui) sets its own policy, which is kept.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (
      typeof type === 'string' &&
      type.startsWith('text/html') &&
      !reply.hasHeader('content-security-policy')
    ) {
      reply.header('Content-Security-Policy', HTML_CSP);
      reply.header('X-Frame-Options', 'DENY');
    }
    done(null, payload);
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // swagger-ui's own policy: its static files and the hash of its inline script.
    // Not framed anywhere, and no upgrade-insecure-requests (it would break the UI on http://localhost).
    staticCSP: true,
    transformStaticCSP: (header: string) =>
      header
        .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
        .replace(/\s*upgrade-insecure-requests;?/, '')
        // swagger-ui sets style attributes at run time (checked in Chromium): styles may be inline,
        // scripts still may not.
        .replace(/style-src [^;]*;/, "style-src 'self' 'unsafe-inline';"),
    uiHooks: {
      // @fastify/swagger-ui redirects /docs/static/index.html to itself when a query follows
      // (its pattern ends in `index\.html$`): a redirect loop. Its query (swagger-ui's `url`,
      // loading another document) is not offered here, so it goes to the UI without it.
      onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        if (request.url.split('?')[0] === '/docs/static/index.html') {
          reply.redirect('/docs/');
          return;
        }
        done();
      },
    },
  });

  app.get('/v1/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  app.get(
    '/docs/errors/:code',
    { schema: { hide: true, params: Type.Object({ code: Type.String({ maxLength: 64 }) }) } },
    async (request, reply) => {
      const code = request.params.code as ErrorCode;
      if (!Object.hasOwn(ERROR_CODES, code)) throw new AppError('not_found', `No error code ${code}.`);
      const { status, title } = ERROR_CODES[code];
      reply.type('text/html; charset=utf-8');
      return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(code)} · consent-service</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<p><a href="/docs/errors">All error codes</a></p>
<h1><code>${escapeHtml(code)}</code></h1>
<p><strong>HTTP ${status}</strong> · ${escapeHtml(title)}</p>
<p>${escapeHtml(ERROR_HELP[code])}</p>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,
<code>status</code>, <code>code</code>, <code>detail</code>, <code>instance</code> and <code>requestId</code>.</p>
</body></html>`;
    },
  );

  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    const rows = (Object.keys(ERROR_CODES) as ErrorCode[])
      .map(
        (c) =>
          `<tr><td><a href="/docs/errors/${c}"><code>${c}</code></a></td><td>${ERROR_CODES[c].status}</td><td>${escapeHtml(ERROR_HELP[c])}</td></tr>`,
      )
      .join('\n');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes · consent-service</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem">
<h1>Error codes</h1><table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
  });
}
