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
import { presentConfigVersion } from './channels.presenters.ts';
import type { ChannelRoutesDeps } from './channels.routes.ts';
import { ChannelParams, ConfigVersion, ConfigVersionParams } from './channels.schemas.ts';

/** The immutable snapshots of what visitors were shown, one per configVersion. */
export function configVersionsRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const tags = ['Channels'];

  app.get(
    '/v1/channels/:id/config-versions',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'listConfigVersions',
        tags,
        summary: 'List a channel’s config versions, newest first',
        params: ChannelParams,
        querystring: Type.Object(PageQuery),
        response: {
          200: ListEnvelope(ConfigVersion),
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
        list: 'config-versions',
        filters: { channelId },
        query: request.query,
        fetch: (limit, after) =>
          channels.listConfigVersions(
            request.db,
            auditContextOf(request),
            channelId,
            limit,
            after?.t ?? null,
          ),
        present: presentConfigVersion,
        // Versions are the order: the cursor's position is the last version shown.
        position: (v) => ({ t: v.version, id: String(v.version) }),
      });
    },
  );

  app.get(
    '/v1/channels/:id/config-versions/:version',
    {
      config: { auth: { scope: 'channels:read' } },
      schema: {
        operationId: 'getConfigVersion',
        tags,
        summary: 'One config version: exactly what visitors were shown',
        params: ConfigVersionParams,
        response: { 200: Envelope(ConfigVersion), 404: Problem, 422: Problem, ...authProblems },
      },
    },
    async (request) => {
      const { id, version } = request.params;
      return envelope(
        presentConfigVersion(
          await channels.getConfigVersion(request.db, auditContextOf(request), id, version),
        ),
      );
    },
  );
}
