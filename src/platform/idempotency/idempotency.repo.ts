import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { rowsOf } from '../db/rows.ts';
import type { Db, Tx } from '../db/store.ts';
import type { KeyRecordOutcome } from './idempotency.scope.ts';
import { type IdempotencyRecord, idempotencyKeys } from './idempotency.tables.ts';

export interface RecordKey {
  organizationId: string;
  scope: string;
  key: string;
}

const byKey = (k: RecordKey) =>
  and(
    eq(idempotencyKeys.organizationId, k.organizationId),
    eq(idempotencyKeys.scope, k.scope),
    eq(idempotencyKeys.key, k.key),
  );

/** One string per record key, for sets and maps. */
export const recordKeyId = (k: RecordKey) => JSON.stringify([k.organizationId, k.scope, k.key]);

export const idempotencyRepo = {
  /**
   * Takes the per-key lock for the rest of the transaction, without waiting: false means another
   * request with the same key holds it (it is still running).
   */
  async tryLock(tx: Tx, lockId: string): Promise<boolean> {
    const result = await tx.execute(sql`select pg_try_advisory_xact_lock(${lockId}::bigint) as locked`);
    const rows = rowsOf<{ locked: boolean }>(result);
    return rows[0]?.locked === true;
  },

  async find(db: Db, k: RecordKey): Promise<IdempotencyRecord | undefined> {
    const [row] = await db.select().from(idempotencyKeys).where(byKey(k));
    return row;
  },

  async remove(tx: Tx, k: RecordKey): Promise<void> {
    await tx.delete(idempotencyKeys).where(byKey(k));
  },

  /** Deletes the key's record if it expired by `now` (a key free again, not yet purged). */
  async removeExpired(tx: Tx, k: RecordKey, now: Date): Promise<void> {
    await tx.delete(idempotencyKeys).where(and(byKey(k), lte(idempotencyKeys.expiresAt, now)));
  },

  async insert(tx: Tx, row: IdempotencyRecord): Promise<void> {
    await tx.insert(idempotencyKeys).values(row);
  },

  /** Stores the record unless its key is held (by a live or an expired record): `taken` then. */
  async insertIfFree(tx: Tx, row: IdempotencyRecord): Promise<KeyRecordOutcome> {
    const stored = await tx
      .insert(idempotencyKeys)
      .values(row)
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    return stored.length === 1 ? 'stored' : 'taken';
  },

  /** Deletes up to `limit` expired rows; returns how many went. */
  async deleteExpired(tx: Tx, now: Date, limit: number): Promise<number> {
    const batch = tx
      .select({
        organizationId: idempotencyKeys.organizationId,
        scope: idempotencyKeys.scope,
        key: idempotencyKeys.key,
      })
      .from(idempotencyKeys)
      .where(lte(idempotencyKeys.expiresAt, now))
      .limit(limit);
    const deleted = await tx
      .delete(idempotencyKeys)
      .where(
        inArray(
          sql`(${idempotencyKeys.organizationId}, ${idempotencyKeys.scope}, ${idempotencyKeys.key})`,
          batch,
        ),
      )
      .returning({ key: idempotencyKeys.key });
    return deleted.length;
  },
};
