import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Created,
  Envelope,
  envelope,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import { CreatePurposeBody, Purpose, PurposeParams, UpdatePurposeBody } from './channel-parts.schemas.ts';
import { presentPurpose } from './channels.presenters.ts';
import type { ChannelRoutesDeps } from './channels.routes.ts';
import { ChannelParams, EmptyBody } from './channels.schemas.ts';

export function purposesRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const purposes = channels.purposes;
  const tags = ['Purposes'];

  app.get(
    '/v1/channels/:id/purposes',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listPurposes',
        tags,
        summary: 'List a channel’s purposes, archived ones included, newest first',
        params: ChannelParams,
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(Purpose), 400: Problem, 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const channelId = request.params.id;
      return pagedList(cursors, {
        list: 'purposes',
        filters: { channelId },
        query: request.query,
        fetch: (limit, after) => purposes.list(request.db, auditContextOf(request), channelId, limit, after),
        present: presentPurpose,
      });
    },
  );

  app.post(
    '/v1/channels/:id/purposes',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'createPurpose',
        tags,
        summary: 'Add a purpose; publishes a new configVersion',
        params: ChannelParams,
        body: CreatePurposeBody,
        response: {
          201: Created(Envelope(Purpose)),
          404: Problem,
          409: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const purpose = await purposes.create(
        request.db,
        auditContextOf(request),
        request.params.id,
        request.body,
      );
      reply.code(201).header('Location', `/v1/channels/${purpose.channelId}/purposes/${purpose.id}`);
      return envelope(presentPurpose(purpose));
    },
  );

  app.get(
    '/v1/channels/:id/purposes/:purposeId',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getPurpose',
        tags,
        summary: 'One purpose',
        params: PurposeParams,
        response: { 200: Envelope(Purpose), 404: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, purposeId } = request.params;
      return envelope(presentPurpose(await purposes.get(request.db, auditContextOf(request), id, purposeId)));
    },
  );

  app.patch(
    '/v1/channels/:id/purposes/:purposeId',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'updatePurpose',
        tags,
        summary:
          'Update a purpose (not its key); publishes a new configVersion when visitors would see a change',
        params: PurposeParams,
        body: UpdatePurposeBody,
        response: { 200: Envelope(Purpose), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, purposeId } = request.params;
      return envelope(
        presentPurpose(
          await purposes.update(request.db, auditContextOf(request), id, purposeId, request.body),
        ),
      );
    },
  );

  app.post(
    '/v1/channels/:id/purposes/:purposeId/archive',
    {
      config: { auth: { scope: 'channels:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'archivePurpose',
        tags,
        summary:
          'Archive a purpose: it leaves the banner and its technologies; publishes a new configVersion',
        params: PurposeParams,
        body: EmptyBody,
        response: { 200: Envelope(Purpose), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, purposeId } = request.params;
      return envelope(
        presentPurpose(await purposes.archive(request.db, auditContextOf(request), id, purposeId)),
      );
    },
  );
}
