import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { type CursorPosition, keysetList } from '../../platform/db/keyset.ts';
import type { Db, Tx } from '../../platform/db/store.ts';
import { type ScanRow, type ScanStatus, scans as s } from './scans.tables.ts';

export interface ScanScope {
  organizationId: string;
  environment: Environment;
}

type Changes = Partial<Omit<ScanRow, 'organizationId' | 'id' | 'environment' | 'channelId' | 'createdAt'>>;

/** The partial unique index that keeps one queued or running scan per channel. */
export const ONE_ACTIVE_SCAN = 'scans_one_active_key';

/** A channel's scans within the caller's organization and environment. */
const ofChannel = (scope: ScanScope, channelId: string) =>
  and(
    eq(s.organizationId, scope.organizationId),
    eq(s.environment, scope.environment),
    eq(s.channelId, channelId),
  );

export const scansRepo = {
  async insert(tx: Tx, row: ScanRow): Promise<void> {
    await tx.insert(s).values(row);
  },

  async find(db: Db, scope: ScanScope, channelId: string, id: string): Promise<ScanRow | undefined> {
    const [row] = await db
      .select()
      .from(s)
      .where(and(ofChannel(scope, channelId), eq(s.id, id)));
    return row;
  },

  /** A scan by organization and id, for the job (which is not tied to an environment). */
  async findForJob(db: Db, organizationId: string, id: string): Promise<ScanRow | undefined> {
    const [row] = await db
      .select()
      .from(s)
      .where(and(eq(s.organizationId, organizationId), eq(s.id, id)));
    return row;
  },

  /**
   * Serializes scan requests of one organization for the rest of the transaction, so two
   * concurrent requests cannot both pass the cap on its queued and running scans.
   */
  async lockOrganization(tx: Tx, organizationId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`scans:${organizationId}`}, 0))`);
  },

  /** Queued or running scans of the organization: every channel, both environments. */
  async countActive(tx: Tx, organizationId: string): Promise<number> {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(s)
      .where(and(eq(s.organizationId, organizationId), inArray(s.status, ['queued', 'running'])));
    return Number(row?.n ?? 0);
  },

  /** The queued or running scan of a channel, if any. */
  async active(db: Db, organizationId: string, channelId: string): Promise<ScanRow | undefined> {
    const [row] = await db
      .select()
      .from(s)
      .where(
        and(
          eq(s.organizationId, organizationId),
          eq(s.channelId, channelId),
          inArray(s.status, ['queued', 'running']),
        ),
      );
    return row;
  },

  list(db: Db, scope: ScanScope, channelId: string, limit: number, after: CursorPosition | null) {
    return keysetList(db, s, { where: [ofChannel(scope, channelId)], limit, after });
  },

  /**
   * Applies `changes` only while the scan is in one of `from` states; undefined when it had moved
   * on, so a scan never goes back (a late worker cannot overwrite a finished scan).
   */
  async transition(
    tx: Tx,
    key: Pick<ScanRow, 'organizationId' | 'id'>,
    from: ScanStatus[],
    changes: Changes,
  ): Promise<ScanRow | undefined> {
    const [row] = await tx
      .update(s)
      .set(changes)
      .where(and(eq(s.organizationId, key.organizationId), eq(s.id, key.id), inArray(s.status, from)))
      .returning();
    return row;
  },
};
