import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  Problem,
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

/** Webhook deliveries: one per event and destination, with their attempts. */
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
      const { limit, cursor, ...filters } = request.query;
      return pagedList(cursors, {
        list: 'webhook-deliveries',
        filters,
        query: { limit, cursor },
        fetch: (limit, after) => deliveries.list(request.db, auditContextOf(request), filters, limit, after),
        present: presentDelivery,
      });
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
      const { delivery, attempts } = await deliveries.get(
        request.db,
        auditContextOf(request),
        request.params.id,
      );
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
      const delivery = await deliveries.redeliver(request.db, auditContextOf(request), request.params.id);
      reply.code(202);
      return envelope(presentDelivery(delivery));
    },
  );
}
