import { namesById } from '../../platform/db/names-by-id.ts';
import { members } from './organizations.tables.ts';

/** Members' email addresses by id, for the audit log's actors and targets. */
export const memberEmails = namesById({
  table: members,
  organizationId: members.organizationId,
  id: members.id,
  name: members.email,
});
