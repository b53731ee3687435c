import { and, asc, eq } from 'drizzle-orm';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { ChannelRow } from './channels.repo.ts';
import { channelApps } from './channels.tables.ts';

type ChannelRef = Pick<ChannelRow, 'organizationId' | 'id'>;
export type AppRow = typeof channelApps.$inferSelect;

const ofChannel = (channel: ChannelRef) =>
  and(eq(channelApps.organizationId, channel.organizationId), eq(channelApps.channelId, channel.id));

/** All SQL over channel_apps: the app ids an app channel answers. */
export const appsRepo = {
  /** Throws the driver's unique violation on channel_apps_channel_app_key when the app id is already active. */
  async insert(tx: Tx, row: AppRow): Promise<void> {
    await tx.insert(channelApps).values(row);
  },

  async findForUpdate(tx: Tx, channel: ChannelRef, id: string) {
    const [row] = await tx
      .select()
      .from(channelApps)
      .where(and(ofChannel(channel), eq(channelApps.id, id)))
      .for('update');
    return row as AppRow | undefined;
  },

  async active(db: Db, channel: ChannelRef): Promise<string[]> {
    const rows = await db
      .select({ appId: channelApps.appId })
      .from(channelApps)
      .where(and(ofChannel(channel), eq(channelApps.status, 'active')))
      .orderBy(asc(channelApps.createdAt), asc(channelApps.id));
    return rows.map((r) => r.appId);
  },

  list(db: Db, channel: ChannelRef, limit: number, after: CursorPosition | null): Promise<AppRow[]> {
    return keysetList(db, channelApps, { where: [ofChannel(channel)], limit, after });
  },

  async archive(tx: Tx, app: AppRow, now: Date): Promise<AppRow> {
    const [row] = await tx
      .update(channelApps)
      .set({ status: 'archived', archivedAt: now })
      .where(and(eq(channelApps.organizationId, app.organizationId), eq(channelApps.id, app.id)))
      .returning();
    return row;
  },
};
