import { namesById } from '../../platform/db/names-by-id.ts';
import { webhookDestinations } from './webhooks.tables.ts';

/** Webhook destinations' URLs by id (what names a destination on screen), for the audit log's targets. */
export const destinationUrls = namesById({
  table: webhookDestinations,
  organizationId: webhookDestinations.organizationId,
  id: webhookDestinations.id,
  name: webhookDestinations.url,
});
