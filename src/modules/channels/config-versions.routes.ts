import { Type } from '@sinclair/typebox';
import { auditContextOf } from '../../platform/auth/auth.hooks.ts';
import {
  authProblems,
  Envelope,
  envelope,
  ListEnvelope,
  PageQuery,
  Problem,
  page,
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
      const limit = request.query.limit ?? 20;
      // Versions are the order: the cursor's position is the last version shown.
      const after = cursors.decode('config-versions', { channelId }, request.query.cursor);
      const rows = await channels.listConfigVersions(
        auditContextOf(request),
        channelId,
        limit,
        after?.t ?? null,
      );
      return page(rows, limit, presentConfigVersion, (v) =>
        cursors.encode('config-versions', { channelId }, { t: v.version, id: String(v.version) }),
      );
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
        presentConfigVersion(await channels.getConfigVersion(auditContextOf(request), id, version)),
      );
    },
  );
}
