import { and, asc, eq, sql } from 'drizzle-orm';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { ChannelRow, PurposeRow } from './channels.repo.ts';
import { purposes, technologies } from './channels.tables.ts';

type ChannelRef = Pick<ChannelRow, 'organizationId' | 'id'>;

export type PurposeChanges = Partial<
  Omit<PurposeRow, 'organizationId' | 'id' | 'channelId' | 'key' | 'createdAt'>
>;

const ofChannel = (channel: ChannelRef) =>
  and(eq(purposes.organizationId, channel.organizationId), eq(purposes.channelId, channel.id));

export const purposesRepo = {
  async insert(tx: Tx, row: PurposeRow): Promise<void> {
    await tx.insert(purposes).values(row);
  },

  async find(db: Db, channel: ChannelRef, id: string) {
    const [row] = await db
      .select()
      .from(purposes)
      .where(and(ofChannel(channel), eq(purposes.id, id)));
    return row as PurposeRow | undefined;
  },

  /** Every purpose of the channel, archived ones included, in creation order. */
  all(db: Db, channel: ChannelRef): Promise<PurposeRow[]> {
    return db
      .select()
      .from(purposes)
      .where(ofChannel(channel))
      .orderBy(asc(purposes.createdAt), asc(purposes.id));
  },

  list(db: Db, channel: ChannelRef, limit: number, after: CursorPosition | null): Promise<PurposeRow[]> {
    return keysetList(db, purposes, { where: [ofChannel(channel)], limit, after });
  },

  async update(tx: Tx, purpose: PurposeRow, changes: PurposeChanges): Promise<PurposeRow> {
    const [row] = await tx
      .update(purposes)
      .set(changes)
      .where(and(eq(purposes.organizationId, purpose.organizationId), eq(purposes.id, purpose.id)))
      .returning();
    return row;
  },

  /** Removes an archived purpose's key from the channel's technologies, so they name active purposes only. */
  async detachFromTechnologies(tx: Tx, purpose: PurposeRow, now: Date): Promise<void> {
    await tx
      .update(technologies)
      .set({ purposeKeys: sql`array_remove(${technologies.purposeKeys}, ${purpose.key})`, updatedAt: now })
      .where(
        and(
          eq(technologies.organizationId, purpose.organizationId),
          eq(technologies.channelId, purpose.channelId),
          sql`${purpose.key} = any(${technologies.purposeKeys})`,
        ),
      );
  },
};
