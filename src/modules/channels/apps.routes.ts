import type { App } from '../../platform/http/types.ts';
import { AppParams, App as AppSchema, CreateAppBody } from './channel-parts.schemas.ts';
import { type ChannelRoutesDeps, channelSubResource } from './channel-sub-resource.ts';
import { presentApp } from './channels.presenters.ts';

/** An app channel's app ids (docs/guides/apps.md), with the scopes and shapes of its origins' routes. */
export function appsRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const apps = channels.apps;
  const routes = channelSubResource(app, cursors, {
    tags: ['Apps'],
    name: 'apps',
    itemParam: 'appRecordId',
    schema: AppSchema,
    present: presentApp,
  });

  routes.list({
    operationId: 'listApps',
    summary: 'List the app ids allowed to call the public endpoints of an app channel, newest first',
    fetch: apps.list,
  });
  // No Location: an app has no route of its own to read it back.
  routes.create({
    operationId: 'createApp',
    summary: 'Allow an app (its bundle id or package name) on an app channel',
    body: CreateAppBody,
    run: apps.create,
  });
  routes.archive({
    operationId: 'archiveApp',
    summary: 'Stop allowing an app',
    params: AppParams,
    run: (db, context, { id, appRecordId }) => apps.archive(db, context, id, appRecordId),
  });
}
