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
import { appsRoutes } from './apps.routes.ts';
import type { ChannelRoutesDeps } from './channel-sub-resource.ts';
import { presentChannel } from './channels.presenters.ts';
import {
  Channel,
  ChannelParams,
  CreateChannelBody,
  EmptyBody,
  UpdateChannelBody,
} from './channels.schemas.ts';
import { configVersionsRoutes } from './config-versions.routes.ts';
import { originsRoutes } from './origins.routes.ts';
import { purposesRoutes } from './purposes.routes.ts';
import { technologiesRoutes } from './technologies.routes.ts';

/** Channels and, under them, purposes, technologies, origins and config versions. */
export function channelsRoutes(app: App, deps: ChannelRoutesDeps) {
  const { channels, cursors } = deps;
  const tags = ['Channels'];

  app.get(
    '/v1/channels',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listChannels',
        tags,
        summary: 'List channels, newest first',
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(Channel), 400: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      return pagedList(cursors, {
        list: 'channels',
        query: request.query,
        fetch: (limit, after) => channels.list(request.db, auditContextOf(request), limit, after),
        present: presentChannel,
      });
    },
  );

  app.post(
    '/v1/channels',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'createChannel',
        tags,
        summary: 'Create a channel (configVersion 1)',
        body: CreateChannelBody,
        response: { 201: Created(Envelope(Channel)), 422: Problem, ...authProblems },
      },
    },
    async (request, reply) => {
      const channel = await channels.create(request.db, auditContextOf(request), request.body);
      reply.code(201).header('Location', `/v1/channels/${channel.id}`);
      return envelope(presentChannel(channel));
    },
  );

  app.get(
    '/v1/channels/:id',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getChannel',
        tags,
        summary: 'One channel',
        params: ChannelParams,
        response: { 200: Envelope(Channel), 404: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(presentChannel(await channels.get(request.db, auditContextOf(request), request.params.id))),
  );

  app.patch(
    '/v1/channels/:id',
    {
      config: { auth: { scope: 'channels:manage' } },
      schema: {
        operationId: 'updateChannel',
        tags,
        summary:
          'Update a channel; a new defaultLanguage or policy url/version publishes a new configVersion',
        params: ChannelParams,
        body: UpdateChannelBody,
        response: { 200: Envelope(Channel), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        presentChannel(
          await channels.update(request.db, auditContextOf(request), request.params.id, request.body),
        ),
      ),
  );

  app.post(
    '/v1/channels/:id/archive',
    {
      config: { auth: { scope: 'channels:manage' } },
      preValidation: absentBodyAsEmpty,
      schema: {
        operationId: 'archiveChannel',
        tags,
        summary: 'Archive a channel: it answers no public calls from now on',
        params: ChannelParams,
        body: EmptyBody,
        response: { 200: Envelope(Channel), 404: Problem, 409: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) =>
      envelope(
        presentChannel(await channels.archive(request.db, auditContextOf(request), request.params.id)),
      ),
  );

  purposesRoutes(app, deps);
  technologiesRoutes(app, deps);
  originsRoutes(app, deps);
  appsRoutes(app, deps);
  configVersionsRoutes(app, deps);
}
