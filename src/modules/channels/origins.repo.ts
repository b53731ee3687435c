import { and, asc, eq } from 'drizzle-orm';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { ChannelRow, OriginRow } from './channels.repo.ts';
import { origins } from './channels.tables.ts';

type ChannelRef = Pick<ChannelRow, 'organizationId' | 'id'>;

const ofChannel = (channel: ChannelRef) =>
  and(eq(origins.organizationId, channel.organizationId), eq(origins.channelId, channel.id));

export const originsRepo = {
  /** Throws the driver's unique violation on origins_channel_origin_key when the origin is already active. */
  async insert(tx: Tx, row: OriginRow): Promise<void> {
    await tx.insert(origins).values(row);
  },

  async find(db: Db, channel: ChannelRef, id: string) {
    const [row] = await db
      .select()
      .from(origins)
      .where(and(ofChannel(channel), eq(origins.id, id)));
    return row as OriginRow | undefined;
  },

  async findForUpdate(tx: Tx, channel: ChannelRef, id: string) {
    const [row] = await tx
      .select()
      .from(origins)
      .where(and(ofChannel(channel), eq(origins.id, id)))
      .for('update');
    return row as OriginRow | undefined;
  },

  async active(db: Db, channel: ChannelRef): Promise<string[]> {
    const rows = await db
      .select({ origin: origins.origin })
      .from(origins)
      .where(and(ofChannel(channel), eq(origins.status, 'active')))
      // Oldest first: a scan's default pages (at most 10) are the same on every run.
      .orderBy(asc(origins.createdAt), asc(origins.id));
    return rows.map((r) => r.origin);
  },

  list(db: Db, channel: ChannelRef, limit: number, after: CursorPosition | null): Promise<OriginRow[]> {
    return keysetList(db, origins, { where: [ofChannel(channel)], limit, after });
  },

  async archive(tx: Tx, origin: OriginRow, now: Date): Promise<OriginRow> {
    const [row] = await tx
      .update(origins)
      .set({ status: 'archived', archivedAt: now })
      .where(and(eq(origins.organizationId, origin.organizationId), eq(origins.id, origin.id)))
      .returning();
    return row;
  },
};
