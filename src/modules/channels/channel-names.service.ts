import { namesById } from '../../platform/db/names-by-id.ts';
import { channels } from './channels.tables.ts';

/** Channels' names by id, for the audit log's targets. */
export const channelNames = namesById({
  table: channels,
  organizationId: channels.organizationId,
  id: channels.id,
  name: channels.name,
});
