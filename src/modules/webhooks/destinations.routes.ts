import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import type { CursorCodec } from '../../platform/http/cursor.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Created,
  Envelope,
  envelope,
  IdParams,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import type { DestinationsService } from './destinations.service.ts';
import { presentDestination } from './webhooks.presenters.ts';
import {
  CreateDestinationBody,
  EmptyBody,
  RotateSecretBody,
  UpdateDestinationBody,
  WebhookDestination,
  WebhookDestinationWithSecret,
} from './webhooks.schemas.ts';

type DestinationsRoutesDeps = { destinations: DestinationsService; cursors: CursorCodec };

const tags = ['Webhooks'];
const read = { auth: { scope: 'webhooks:read' as const } };
const write = { auth: { scope: 'webhooks:write' as const } };

/** Webhook destinations. The secret is in the create and rotate responses only. */
export function destinationsRoutes(app: App, deps: DestinationsRoutesDeps) {
  registerDestinationCrudRoutes(app, deps);
  registerDestinationActionRoutes(app, deps);
}

/** List, create, read and change destinations. */
function registerDestinationCrudRoutes(app: App, deps: DestinationsRoutesDeps) {
  const { destinations, cursors } = deps;

  app.get(
    '/v1/webhook-destinations',
    {
      config: read,
      schema: {
        operationId: 'listWebhookDestinations',
        tags,
        summary: 'List webhook destinations, newest first (never their secrets)',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(WebhookDestination), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      return pagedList(cursors, {
        list: 'webhook-destinations',
        query: request.query,
        fetch: (limit, after) => destinations.list(request.db, auditContextOf(request), limit, after),
        present: presentDestination,
      });
    },
  );

  app.post(
    '/v1/webhook-destinations',
    {
      config: write,
      schema: {
        operationId: 'createWebhookDestination',
        tags,
        summary: 'Create a destination; its signing secret is in this response only',
        body: CreateDestinationBody,
        response: { 201: Created(Envelope(WebhookDestinationWithSecret)), 422: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const { destination, secret } = await destinations.create(
        request.db,
        auditContextOf(request),
        request.body,
      );
      reply.code(201).header('Location', `/v1/webhook-destinations/${destination.id}`);
      return envelope({ ...presentDestination(destination), secret });
    },
  );

  app.get(
    '/v1/webhook-destinations/:id',
    {
      config: read,
      schema: {
        operationId: 'getWebhookDestination',
        tags,
        summary: 'One webhook destination (never its secret)',
        params: IdParams,
        response: { 200: Envelope(WebhookDestination), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        presentDestination(await destinations.get(request.db, auditContextOf(request), request.params.id)),
      ),
  );

  app.patch(
    '/v1/webhook-destinations/:id',
    {
      config: write,
      schema: {
        operationId: 'updateWebhookDestination',
        tags,
        summary: 'Change the url, description or eventTypes of a destination',
        params: IdParams,
        body: UpdateDestinationBody,
        response: { 200: Envelope(WebhookDestination), 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        presentDestination(
          await destinations.update(request.db, auditContextOf(request), request.params.id, request.body),
        ),
      ),
  );
}

/** The actions on one destination: rotating its secret, disabling and enabling it. */
function registerDestinationActionRoutes(app: App, deps: Pick<DestinationsRoutesDeps, 'destinations'>) {
  const { destinations } = deps;

  app.post(
    '/v1/webhook-destinations/:id/rotate-secret',
    {
      config: write,
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'rotateWebhookDestinationSecret',
        tags,
        summary: 'New signing secret (shown once); the old one also signs for graceSeconds',
        params: IdParams,
        body: RotateSecretBody,
        response: {
          200: Envelope(WebhookDestinationWithSecret),
          404: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request) => {
      const graceSeconds = request.body.graceSeconds ?? 86_400;
      const { destination, secret } = await destinations.rotateSecret(
        request.db,
        auditContextOf(request),
        request.params.id,
        graceSeconds,
      );
      return envelope({ ...presentDestination(destination), secret });
    },
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/v1/webhook-destinations/:id/${action}`,
      {
        config: write,
        preValidation: absentBodyAsEmpty,
        schema: {
          operationId: `${action}WebhookDestination`,
          tags,
          summary:
            action === 'disable'
              ? 'Stop sending to a destination; its pending deliveries wait until it is enabled'
              : 'Send to a destination again, resuming the deliveries that waited',
          params: IdParams,
          body: EmptyBody,
          response: { 200: Envelope(WebhookDestination), 404: Problem, 409: Problem, ...authProblems },
        },
      },
      async (request) =>
        envelope(
          presentDestination(
            await destinations[action](request.db, auditContextOf(request), request.params.id),
          ),
        ),
    );
  }
}
