import type { App } from '../../platform/http/types.ts';
import { CreateOriginBody, Origin, OriginParams } from './channel-parts.schemas.ts';
import { type ChannelRoutesDeps, channelSubResource } from './channel-sub-resource.ts';
import { presentOrigin } from './channels.presenters.ts';

export function originsRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const origins = channels.origins;
  const routes = channelSubResource(app, cursors, {
    tags: ['Origins'],
    name: 'origins',
    itemParam: 'originId',
    schema: Origin,
    present: presentOrigin,
  });

  routes.list({
    operationId: 'listOrigins',
    summary: 'List the origins allowed to post preferences for the channel, newest first',
    fetch: origins.list,
  });
  // No Location: an origin has no route of its own to read it back.
  routes.create({
    operationId: 'createOrigin',
    summary: 'Allow an origin (normalized; one leading wildcard label allowed)',
    body: CreateOriginBody,
    run: origins.create,
  });
  routes.archive({
    operationId: 'archiveOrigin',
    summary: 'Stop allowing an origin',
    params: OriginParams,
    run: (db, context, { id, originId }) => origins.archive(db, context, id, originId),
  });
}
