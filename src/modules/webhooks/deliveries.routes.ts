import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import {
  authProblems,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  Problem,
  page,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import type { DeliveriesService } from './deliveries.service.ts';
import { presentAttempt, presentDelivery } from './webhooks.presenters.ts';
import {
  DeliveriesQuery,
  EmptyBody,
  WebhookDelivery,
  WebhookDeliveryWithAttempts,
} from './webhooks.schemas.ts';

/** Webhook deliveries (contract §8): one per event and destination, with their attempts. */
export function deliveriesRoutes(app: App, deps: { deliveries: DeliveriesService; cursors: CursorCodec }) {
  const { deliveries, cursors } = deps;
  const tags = ['Webhooks'];

  app.get(
    '/v1/webhook-deliveries',
    {
      config: { auth: { scope: 'webhooks:read' } },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'List deliveries, newest first; filter by destinationId, status, eventType',
        querystring: DeliveriesQuery,
        response: { 200: ListEnvelope(WebhookDelivery), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { limit = 20, cursor, ...filters } = request.query;
      const after = cursors.decode('webhook-deliveries', filters, cursor);
      const rows = await deliveries.list(auditContextOf(request), filters, limit, after);
      return page(rows, limit, presentDelivery, (d) =>
        cursors.encode('webhook-deliveries', filters, { t: d.createdAt.getTime(), id: d.id }),
      );
    },
  );

  app.get(
    '/v1/webhook-deliveries/:id',
    {
      config: { auth: { scope: 'webhooks:read' } },
      schema: {
        operationId: 'getWebhookDelivery',
        tags,
        summary: 'One delivery with every attempt, oldest first',
        params: IdParams,
        response: { 200: Envelope(WebhookDeliveryWithAttempts), 404: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { delivery, attempts } = await deliveries.get(auditContextOf(request), request.params.id);
      return envelope({ ...presentDelivery(delivery), attempts: attempts.map(presentAttempt) });
    },
  );

  app.post(
    '/v1/webhook-deliveries/:id/redeliver',
    {
      config: { auth: { scope: 'webhooks:write' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: 'Send a failed delivery again (same webhook-id, new retry schedule)',
        params: IdParams,
        body: EmptyBody,
        response: { 202: Envelope(WebhookDelivery), 404: Problem, 409: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const delivery = await deliveries.redeliver(auditContextOf(request), request.params.id);
      reply.code(202);
      return envelope(presentDelivery(delivery));
    },
  );
}
