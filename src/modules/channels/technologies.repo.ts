import { and, asc, eq } from 'drizzle-orm';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import type { ChannelRow, TechnologyRow } from './channels.repo.ts';
import { technologies } from './channels.tables.ts';

type ChannelRef = Pick<ChannelRow, 'organizationId' | 'id'>;

export type TechnologyChanges = Partial<
  Pick<TechnologyRow, 'name' | 'vendor' | 'purposeKeys' | 'cookies' | 'hosts' | 'updatedAt'>
>;

const ofChannel = (channel: ChannelRef) =>
  and(eq(technologies.organizationId, channel.organizationId), eq(technologies.channelId, channel.id));

export const technologiesRepo = {
  async insert(tx: Tx, row: TechnologyRow): Promise<void> {
    await tx.insert(technologies).values(row);
  },

  async find(db: Db, channel: ChannelRef, id: string) {
    const [row] = await db
      .select()
      .from(technologies)
      .where(and(ofChannel(channel), eq(technologies.id, id)));
    return row as TechnologyRow | undefined;
  },

  all(db: Db, channel: ChannelRef): Promise<TechnologyRow[]> {
    return db
      .select()
      .from(technologies)
      .where(ofChannel(channel))
      .orderBy(asc(technologies.createdAt), asc(technologies.id));
  },

  list(db: Db, channel: ChannelRef, limit: number, after: CursorPosition | null): Promise<TechnologyRow[]> {
    return keysetList(db, technologies, { where: [ofChannel(channel)], limit, after });
  },

  async update(tx: Tx, technology: TechnologyRow, changes: TechnologyChanges): Promise<TechnologyRow> {
    const [row] = await tx
      .update(technologies)
      .set(changes)
      .where(
        and(eq(technologies.organizationId, technology.organizationId), eq(technologies.id, technology.id)),
      )
      .returning();
    return row;
  },

  async delete(tx: Tx, technology: TechnologyRow): Promise<void> {
    await tx
      .delete(technologies)
      .where(
        and(eq(technologies.organizationId, technology.organizationId), eq(technologies.id, technology.id)),
      );
  },
};
