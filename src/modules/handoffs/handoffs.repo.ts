import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../platform/db/store.ts';
import { type HandoffRow, handoffs } from './handoffs.tables.ts';

const h = handoffs;

/** A channel, as its handoffs are looked up: its organization first (the primary key's order). */
export interface ChannelRef {
  organizationId: string;
  environment: 'test' | 'live';
  id: string;
}

/** All SQL over handoffs. */
export const handoffsRepo = {
  async insert(tx: Tx, row: HandoffRow): Promise<void> {
    await tx.insert(h).values(row);
  },

  /** The channel's row of a token hash, whatever its state (the caller judges it). */
  async find(db: Db, channel: ChannelRef, tokenHash: string): Promise<HandoffRow | undefined> {
    const [row] = await db
      .select()
      .from(h)
      .where(
        and(
          eq(h.organizationId, channel.organizationId),
          eq(h.tokenHash, tokenHash),
          eq(h.channelId, channel.id),
        ),
      );
    return row;
  },

  /**
   * Marks an unused, unexpired token of the channel redeemed, bound to `targetOrigin`: exactly one
   * of concurrent redeems gets the row back (the second waits for the first's row lock, then finds
   * it used); any other finds none.
   */
  async redeem(
    tx: Tx,
    channel: ChannelRef,
    tokenHash: string,
    redeem: { targetOrigin: string; now: Date; redeemedPseudonym: string; handedEventId: string | null },
  ): Promise<HandoffRow | undefined> {
    const [row] = await tx
      .update(h)
      .set({
        redeemedAt: redeem.now,
        redeemedPseudonym: redeem.redeemedPseudonym,
        handedEventId: redeem.handedEventId,
      })
      .where(
        and(
          eq(h.organizationId, channel.organizationId),
          eq(h.tokenHash, tokenHash),
          eq(h.channelId, channel.id),
          eq(h.targetOrigin, redeem.targetOrigin),
          isNull(h.redeemedAt),
          gt(h.expiresAt, redeem.now),
        ),
      )
      .returning();
    return row;
  },

  /** Links a redeemed token to the event its redeem recorded (a handoff from an app). */
  async setHanded(tx: Tx, channel: ChannelRef, tokenHash: string, eventId: string): Promise<void> {
    await tx
      .update(h)
      .set({ handedEventId: eventId })
      .where(and(eq(h.organizationId, channel.organizationId), eq(h.tokenHash, tokenHash)));
  },

  /** Gives a redeemed token back (its event could not be written): a retry may redeem it. */
  async release(tx: Tx, channel: ChannelRef, tokenHash: string): Promise<void> {
    await tx
      .update(h)
      .set({ redeemedAt: null, redeemedPseudonym: null, handedEventId: null })
      .where(and(eq(h.organizationId, channel.organizationId), eq(h.tokenHash, tokenHash)));
  },

  /** The event handed over by the newest redeem of a visitor on the channel, or null. */
  async newestHandedTo(db: Db, channel: ChannelRef, pseudonym: string): Promise<string | null> {
    const [row] = await db
      .select({ eventId: h.handedEventId })
      .from(h)
      .where(
        and(
          eq(h.organizationId, channel.organizationId),
          eq(h.channelId, channel.id),
          eq(h.redeemedPseudonym, pseudonym),
          isNotNull(h.handedEventId),
        ),
      )
      .orderBy(desc(h.redeemedAt))
      .limit(1);
    return row?.eventId ?? null;
  },

  /**
   * Deletes at most `limit` rows no longer needed: tokens never redeemed, an hour after they
   * expired; test tokens after a day (test evidence is purged then); redeemed ones before
   * `redeemedBefore` (no decision they link to can hold any longer).
   */
  async purge(tx: Tx, now: Date, redeemedBefore: Date, limit: number): Promise<number> {
    const batch = tx
      .select({ organizationId: h.organizationId, tokenHash: h.tokenHash })
      .from(h)
      .where(
        or(
          and(isNull(h.redeemedAt), lt(h.expiresAt, new Date(now.getTime() - 3600_000))),
          and(eq(h.environment, 'test'), lt(h.createdAt, new Date(now.getTime() - 86_400_000))),
          lt(h.redeemedAt, redeemedBefore),
        ),
      )
      .limit(limit);
    const deleted = await tx
      .delete(h)
      .where(inArray(sql`(${h.organizationId}, ${h.tokenHash})`, batch))
      .returning({ tokenHash: h.tokenHash });
    return deleted.length;
  },
};
