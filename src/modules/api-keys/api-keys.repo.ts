import { and, eq, inArray } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { members, organizations } from '../organizations/organizations.tables.ts';
import { apiKeys } from './api-keys.tables.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export const apiKeysRepo = {
  async insert(tx: Tx, row: ApiKeyRow): Promise<void> {
    await tx.insert(apiKeys).values(row);
  },

  /** The email of the member each key belongs to, by key id (keys of the organization only). */
  async ownerEmails(db: Db, organizationId: string, ids: string[]): Promise<Map<string, string>> {
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
  },

  /** The key with its member's role and its organization's limit, found by the hash of its secret. */
  async findBySecretHash(db: Db, secretHash: string) {
    const [row] = await db
      .select({ key: apiKeys, role: members.role, rateLimitPerMinute: organizations.rateLimitPerMinute })
      .from(apiKeys)
      .innerJoin(
        members,
        and(eq(members.organizationId, apiKeys.organizationId), eq(members.id, apiKeys.memberId)),
      )
      .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
      .where(eq(apiKeys.secretHash, secretHash));
    return row;
  },

  async find(
    db: Db,
    organizationId: string,
    environment: Environment,
    id: string,
  ): Promise<ApiKeyRow | undefined> {
    const [row] = await db
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          eq(apiKeys.environment, environment),
          eq(apiKeys.id, id),
        ),
      );
    return row;
  },

  /** Locks the row for a state change, so two concurrent rotations or revocations serialize. */
  async findForUpdate(tx: Tx, organizationId: string, environment: Environment, id: string) {
    const [row] = await tx
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          eq(apiKeys.environment, environment),
          eq(apiKeys.id, id),
        ),
      )
      .for('update');
    return row;
  },

  list(
    db: Db,
    organizationId: string,
    environment: Environment,
    limit: number,
    after: CursorPosition | null,
  ): Promise<ApiKeyRow[]> {
    return keysetList(db, apiKeys, {
      where: [eq(apiKeys.organizationId, organizationId), eq(apiKeys.environment, environment)],
      limit,
      after,
    });
  },

  async update(
    tx: Tx,
    key: Pick<ApiKeyRow, 'organizationId' | 'id'>,
    changes: Partial<Pick<ApiKeyRow, 'expiresAt' | 'revokedAt' | 'lastUsedAt'>>,
  ): Promise<ApiKeyRow> {
    const [row] = await tx
      .update(apiKeys)
      .set(changes)
      .where(and(eq(apiKeys.organizationId, key.organizationId), eq(apiKeys.id, key.id)))
      .returning();
    return row;
  },
};
