import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { Envelope, envelope, Problem } from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { receiptPage } from './receipt-page.ts';
import { Receipt, ReceiptParams, ReceiptQuery } from './receipts.schemas.ts';
import type { ReceiptsService } from './receipts.service.ts';

/** The page's policy: only its own nonce'd script and style run; it fetches only from this service. */
const pageHeaders = (nonce: string) => ({
  'Content-Security-Policy':
    `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; ` +
    "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
});

/** The address holds a capability: no Referer carries it away, no cache keeps it. */
const CAPABILITY_HEADERS = { 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };
const capabilityHeaderSchemas = { 'Cache-Control': Type.String(), 'Referrer-Policy': Type.String() };

/** A browser navigating asks for HTML; fetch, curl and the CLI get JSON. */
const wantsHtml = (accept: string | undefined) =>
  accept?.includes('text/html') && !accept.includes('application/json');

/** A visitor's receipt, opened by the capability token that only the decision's 201 carried. */
export function receiptsRoutes(app: App, deps: { receipts: ReceiptsService }) {
  const { receipts } = deps;
  app.get(
    '/v1/public/receipts/:eventId',
    {
      config: { auth: 'public' },
      // First, so every answer carries them: the 404 of a wrong token and the 429 too (the address
      // holds a token either way).
      onRequest: [
        async (_request, reply) => {
          reply.headers(CAPABILITY_HEADERS);
        },
        app.publicRateLimit,
      ],
      schema: {
        operationId: 'getReceipt',
        tags: ['Public site endpoints'],
        summary:
          "A visitor's receipt of one decision: JSON, or with Accept: text/html a page that verifies it in the browser",
        security: [],
        params: ReceiptParams,
        querystring: ReceiptQuery,
        response: {
          200: {
            description: 'The receipt (JSON), or the page that shows and verifies it (HTML)',
            headers: capabilityHeaderSchemas,
            content: {
              'application/json': { schema: Envelope(Receipt) },
              'text/html': { schema: Type.String() },
            },
          },
          404: { ...Problem, headers: capabilityHeaderSchemas },
          422: { ...Problem, headers: capabilityHeaderSchemas },
          429: { ...Problem, headers: capabilityHeaderSchemas },
        },
      },
    },
    async (request, reply) => {
      const receipt = await receipts.get(request.db, request.params.eventId, request.query.token);
      if (wantsHtml(request.headers.accept)) {
        const nonce = randomBytes(16).toString('base64');
        return (reply as FastifyReply)
          .headers(pageHeaders(nonce))
          .type('text/html; charset=utf-8')
          .send(receiptPage(nonce));
      }
      return envelope(receipt);
    },
  );
}
