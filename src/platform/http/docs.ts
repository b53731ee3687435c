import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPageRoutes } from './error-pages.ts';
import { completeDocument, describeRoute } from './openapi.ts';
import type { App } from './types.ts';

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
  errorPageRoutes(app);
}
