import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../platform/db/store.ts';
import { type IdentitySecretRow, identitySecrets } from './identity.tables.ts';

const s = identitySecrets;

/** A channel, as the secrets of one are looked up: its organization first (the primary key's order). */
export interface ChannelRef {
  organizationId: string;
  environment: 'test' | 'live';
  id: string;
}

const activeOf = (channel: ChannelRef) =>
  and(
    eq(s.organizationId, channel.organizationId),
    eq(s.environment, channel.environment),
    eq(s.channelId, channel.id),
    isNull(s.revokedAt),
  );

/** All SQL over identity_secrets. */
export const identitySecretsRepo = {
  /**
   * Serializes the changes of one channel's secrets until `tx` ends: two concurrent creates cannot
   * both see one active secret and make three.
   */
  async lockChannel(tx: Tx, channel: ChannelRef): Promise<void> {
    const name = `identity-secrets:${channel.organizationId}:${channel.id}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
  },

  async insert(tx: Tx, row: IdentitySecretRow): Promise<void> {
    await tx.insert(s).values(row);
  },

  /** The channel's active secrets, newest first (two at most). */
  active(db: Db, channel: ChannelRef): Promise<IdentitySecretRow[]> {
    return db.select().from(s).where(activeOf(channel)).orderBy(desc(s.createdAt), desc(s.id));
  },

  /** Revokes one active secret of the channel; null when it has no such active secret. */
  async revoke(tx: Tx, channel: ChannelRef, id: string, now: Date): Promise<IdentitySecretRow | null> {
    const [row] = await tx
      .update(s)
      .set({ revokedAt: now })
      .where(and(activeOf(channel), eq(s.id, id)))
      .returning();
    return row ?? null;
  },
};
