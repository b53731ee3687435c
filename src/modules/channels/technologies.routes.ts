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
import {
  CreateTechnologyBody,
  Technology,
  TechnologyParams,
  UpdateTechnologyBody,
} from './channel-parts.schemas.ts';
import { presentTechnology } from './channels.presenters.ts';
import type { ChannelRoutesDeps } from './channels.routes.ts';
import { ChannelParams } from './channels.schemas.ts';

export function technologiesRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const technologies = channels.technologies;
  const tags = ['Technologies'];

  app.get(
    '/v1/channels/:id/technologies',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listTechnologies',
        tags,
        summary: 'List a channel’s technologies (scripts, cookies), newest first',
        params: ChannelParams,
        querystring: Type.Object(PageQuery),
        response: {
          200: ListEnvelope(Technology),
          400: Problem,
          404: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request) => {
      const channelId = request.params.id;
      return pagedList(cursors, {
        list: 'technologies',
        filters: { channelId },
        query: request.query,
        fetch: (limit, after) =>
          technologies.list(request.db, auditContextOf(request), channelId, limit, after),
        present: presentTechnology,
      });
    },
  );

  app.post(
    '/v1/channels/:id/technologies',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'createTechnology',
        tags,
        summary: 'Add a technology; its purposeKeys must name active purposes. Publishes a new configVersion',
        params: ChannelParams,
        body: CreateTechnologyBody,
        response: {
          201: Created(Envelope(Technology)),
          404: Problem,
          409: Problem,
          422: Problem,
          ...authProblems,
        },
      },
    },
    async (request, reply) => {
      const technology = await technologies.create(
        request.db,
        auditContextOf(request),
        request.params.id,
        request.body,
      );
      reply
        .code(201)
        .header('Location', `/v1/channels/${technology.channelId}/technologies/${technology.id}`);
      return envelope(presentTechnology(technology));
    },
  );

  app.get(
    '/v1/channels/:id/technologies/:technologyId',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getTechnology',
        tags,
        summary: 'One technology',
        params: TechnologyParams,
        response: { 200: Envelope(Technology), 404: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, technologyId } = request.params;
      return envelope(
        presentTechnology(await technologies.get(request.db, auditContextOf(request), id, technologyId)),
      );
    },
  );

  app.patch(
    '/v1/channels/:id/technologies/:technologyId',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'updateTechnology',
        tags,
        summary: 'Update a technology; publishes a new configVersion when visitors would see a change',
        params: TechnologyParams,
        body: UpdateTechnologyBody,
        response: { 200: Envelope(Technology), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, technologyId } = request.params;
      const updated = await technologies.update(
        request.db,
        auditContextOf(request),
        id,
        technologyId,
        request.body,
      );
      return envelope(presentTechnology(updated));
    },
  );

  app.delete(
    '/v1/channels/:id/technologies/:technologyId',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'deleteTechnology',
        tags,
        summary: 'Delete a technology; publishes a new configVersion',
        params: TechnologyParams,
        response: { 204: Type.Null(), 404: Problem, 409: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const { id, technologyId } = request.params;
      await technologies.delete(request.db, auditContextOf(request), id, technologyId);
      return reply.code(204).send(null);
    },
  );
}
