import { and, eq, inArray } from 'drizzle-orm';
import type { NameLookup } from '../../platform/db/names-by-id.ts';
import { namesById } from '../../platform/db/names-by-id.ts';
import { members } from '../organizations/organizations.tables.ts';
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
export const apiKeyOwnerEmails: NameLookup = async (db, organizationId, ids) => {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: apiKeys.id, email: members.email })
    .from(apiKeys)
    .innerJoin(
      members,
      and(eq(members.organizationId, apiKeys.organizationId), eq(members.id, apiKeys.memberId)),
    )
    .where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.id, ids)));
  return new Map(rows.map((r) => [r.id, r.email]));
};
