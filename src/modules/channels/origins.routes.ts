import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import { pagedList } from '../../platform/http/paged-list.ts';
import {
  authProblems,
  Envelope,
  envelope,
  ListEnvelope,
  PageQuery,
  Problem,
} from '../../platform/http/schemas.ts';
import type { App } from '../../platform/http/types.ts';
import { absentBodyAsEmpty } from '../../platform/http/validation.ts';
import { CreateOriginBody, Origin, OriginParams } from './channel-parts.schemas.ts';
import { presentOrigin } from './channels.presenters.ts';
import type { ChannelRoutesDeps } from './channels.routes.ts';
import { ChannelParams, EmptyBody } from './channels.schemas.ts';

export function originsRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const origins = channels.origins;
  const tags = ['Origins'];

  app.get(
    '/v1/channels/:id/origins',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listOrigins',
        tags,
        summary: 'List the origins allowed to post preferences for the channel, newest first',
        params: ChannelParams,
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(Origin), 400: Problem, 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const channelId = request.params.id;
      return pagedList(cursors, {
        list: 'origins',
        filters: { channelId },
        query: request.query,
        fetch: (limit, after) => origins.list(request.db, auditContextOf(request), channelId, limit, after),
        present: presentOrigin,
      });
    },
  );

  app.post(
    '/v1/channels/:id/origins',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'createOrigin',
        tags,
        summary: 'Allow an origin (normalized; one leading wildcard label allowed)',
        params: ChannelParams,
        body: CreateOriginBody,
        response: { 201: Envelope(Origin), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const origin = await origins.create(
        request.db,
        auditContextOf(request),
        request.params.id,
        request.body,
      );
      reply.code(201);
      return envelope(presentOrigin(origin));
    },
  );

  app.post(
    '/v1/channels/:id/origins/:originId/archive',
    {
      config: { auth: { scope: 'channels:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'archiveOrigin',
        tags,
        summary: 'Stop allowing an origin',
        params: OriginParams,
        body: EmptyBody,
        response: { 200: Envelope(Origin), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, originId } = request.params;
      return envelope(
        presentOrigin(await origins.archive(request.db, auditContextOf(request), id, originId)),
      );
    },
  );
}
