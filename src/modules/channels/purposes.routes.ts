import type { App } from '../../platform/http/types.ts';
import { CreatePurposeBody, Purpose, PurposeParams, UpdatePurposeBody } from './channel-parts.schemas.ts';
import { type ChannelRoutesDeps, channelSubResource } from './channel-sub-resource.ts';
import { presentPurpose } from './channels.presenters.ts';

export function purposesRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const purposes = channels.purposes;
  const routes = channelSubResource(app, cursors, {
    tags: ['Purposes'],
    name: 'purposes',
    itemParam: 'purposeId',
    schema: Purpose,
    present: presentPurpose,
  });

  routes.list({
    operationId: 'listPurposes',
    summary: 'List a channel’s purposes, archived ones included, newest first',
    fetch: purposes.list,
  });
  routes.create({
    operationId: 'createPurpose',
    summary: 'Add a purpose; publishes a new configVersion',
    body: CreatePurposeBody,
    run: purposes.create,
    location: (purpose) => `/v1/channels/${purpose.channelId}/purposes/${purpose.id}`,
  });
  routes.get({
    operationId: 'getPurpose',
    summary: 'One purpose',
    params: PurposeParams,
    run: (db, context, { id, purposeId }) => purposes.get(db, context, id, purposeId),
  });
  routes.update({
    operationId: 'updatePurpose',
    summary: 'Update a purpose (not its key); publishes a new configVersion when visitors would see a change',
    params: PurposeParams,
    body: UpdatePurposeBody,
    run: (db, context, { id, purposeId }, body) => purposes.update(db, context, id, purposeId, body),
  });
  routes.archive({
    operationId: 'archivePurpose',
    summary: 'Archive a purpose: it leaves the banner and its technologies; publishes a new configVersion',
    params: PurposeParams,
    run: (db, context, { id, purposeId }) => purposes.archive(db, context, id, purposeId),
  });
}
