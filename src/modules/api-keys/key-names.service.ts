import type { NameLookup } from '../../platform/db/names-by-id.ts';
import { namesById } from '../../platform/db/names-by-id.ts';
import { apiKeysRepo } from './api-keys.repo.ts';
import { apiKeys } from './api-keys.tables.ts';

/** API keys' names by id, for the audit log's actors and targets. */
export const apiKeyNames = namesById({
  table: apiKeys,
  organizationId: apiKeys.organizationId,
  id: apiKeys.id,
  name: apiKeys.name,
});

/**
 * The email of the member each API key belongs to, by key id: the person answerable for what an
 * integration did, in the audit log.
 */
export const apiKeyOwnerEmails: NameLookup = (db, organizationId, ids) =>
  apiKeysRepo.ownerEmails(db, organizationId, ids);
