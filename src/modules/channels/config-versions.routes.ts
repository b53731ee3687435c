import type { App } from '../../platform/http/types.ts';
import { type ChannelRoutesDeps, channelSubResource } from './channel-sub-resource.ts';
import { presentConfigVersion } from './channels.presenters.ts';
import { ConfigVersion, ConfigVersionParams } from './channels.schemas.ts';

/** The immutable snapshots of what visitors were shown, one per configVersion. */
export function configVersionsRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const routes = channelSubResource(app, cursors, {
    tags: ['Channels'],
    name: 'config-versions',
    itemParam: 'version',
    schema: ConfigVersion,
    present: presentConfigVersion,
  });

  routes.list({
    operationId: 'listConfigVersions',
    summary: 'List a channel’s config versions, newest first',
    fetch: (db, context, channelId, limit, after) =>
      channels.listConfigVersions(db, context, channelId, limit, after?.t ?? null),
    // Versions are the order: the cursor's position is the last version shown.
    position: (v) => ({ t: v.version, id: String(v.version) }),
  });
  routes.get({
    operationId: 'getConfigVersion',
    summary: 'One config version: exactly what visitors were shown',
    params: ConfigVersionParams,
    // A version that is not a positive integer is refused before it is looked up.
    problems: [404, 422],
    run: (db, context, { id, version }) => channels.getConfigVersion(db, context, id, version),
  });
}
