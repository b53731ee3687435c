import type { App } from '../../platform/http/types.ts';
import {
  CreateTechnologyBody,
  Technology,
  TechnologyParams,
  UpdateTechnologyBody,
} from './channel-parts.schemas.ts';
import { type ChannelRoutesDeps, channelSubResource } from './channel-sub-resource.ts';
import { presentTechnology } from './channels.presenters.ts';

export function technologiesRoutes(app: App, { channels, cursors }: ChannelRoutesDeps) {
  const technologies = channels.technologies;
  const routes = channelSubResource(app, cursors, {
    tags: ['Technologies'],
    name: 'technologies',
    itemParam: 'technologyId',
    schema: Technology,
    present: presentTechnology,
  });

  routes.list({
    operationId: 'listTechnologies',
    summary: 'List a channel’s technologies (scripts, cookies), newest first',
    fetch: technologies.list,
  });
  routes.create({
    operationId: 'createTechnology',
    summary: 'Add a technology; its purposeKeys must name active purposes. Publishes a new configVersion',
    body: CreateTechnologyBody,
    run: technologies.create,
    location: (technology) => `/v1/channels/${technology.channelId}/technologies/${technology.id}`,
  });
  routes.get({
    operationId: 'getTechnology',
    summary: 'One technology',
    params: TechnologyParams,
    run: (db, context, { id, technologyId }) => technologies.get(db, context, id, technologyId),
  });
  routes.update({
    operationId: 'updateTechnology',
    summary: 'Update a technology; publishes a new configVersion when visitors would see a change',
    params: TechnologyParams,
    body: UpdateTechnologyBody,
    run: (db, context, { id, technologyId }, body) =>
      technologies.update(db, context, id, technologyId, body),
  });
  routes.delete({
    operationId: 'deleteTechnology',
    summary: 'Delete a technology; publishes a new configVersion',
    params: TechnologyParams,
    run: (db, context, { id, technologyId }) => technologies.delete(db, context, id, technologyId),
  });
}
