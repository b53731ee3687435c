import { and, desc, eq, lte, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../platform/db/store.ts';
import {
  tcfMirrorState,
  tcfStorageDisclosures,
  tcfVendorListLanguages,
  tcfVendorLists,
} from './tcf.tables.ts';
import { MAX_VENDOR_LIST_VERSION } from './vendor-list/vendor-list-shape.ts';

/**
 * The newest version is the highest a TC string can carry: a row above it (stored before lists
 * were checked) never pins channels to a version their strings cannot name.
 */
const carried = lte(tcfVendorLists.vendorListVersion, MAX_VENDOR_LIST_VERSION);

export type VendorListRow = typeof tcfVendorLists.$inferSelect;
export type VendorListLanguageRow = typeof tcfVendorListLanguages.$inferSelect;
export type MirrorStateRow = typeof tcfMirrorState.$inferSelect;
export type StorageDisclosureRow = typeof tcfStorageDisclosures.$inferSelect;

/** The mirror state is one row; its id is fixed. */
const STATE_ID = 1;

/** All SQL of the vendor list mirror's tables (tcf.tables.ts). */
export const tcfRepo = {
  async latest(db: Db): Promise<VendorListRow | null> {
    const [row] = await db
      .select()
      .from(tcfVendorLists)
      .where(carried)
      .orderBy(desc(tcfVendorLists.vendorListVersion))
      .limit(1);
    return row ?? null;
  },

  /** The newest version's number only (the bodies are large; callers cache them by version). */
  async latestVersion(db: Db): Promise<number | null> {
    const [row] = await db
      .select({ version: tcfVendorLists.vendorListVersion })
      .from(tcfVendorLists)
      .where(carried)
      .orderBy(desc(tcfVendorLists.vendorListVersion))
      .limit(1);
    return row?.version ?? null;
  },

  async byVersion(db: Db, vendorListVersion: number): Promise<VendorListRow | null> {
    const [row] = await db
      .select()
      .from(tcfVendorLists)
      .where(eq(tcfVendorLists.vendorListVersion, vendorListVersion))
      .limit(1);
    return row ?? null;
  },

  /** Stores a version unless it is already there (a version never changes); true when it was new. */
  async insertVersion(tx: Tx, row: VendorListRow): Promise<boolean> {
    const inserted = await tx
      .insert(tcfVendorLists)
      .values(row)
      .onConflictDoNothing()
      .returning({ version: tcfVendorLists.vendorListVersion });
    return inserted.length > 0;
  },

  async languageFile(
    db: Db,
    vendorListVersion: number,
    language: string,
  ): Promise<VendorListLanguageRow | null> {
    const [row] = await db
      .select()
      .from(tcfVendorListLanguages)
      .where(
        and(
          eq(tcfVendorListLanguages.vendorListVersion, vendorListVersion),
          eq(tcfVendorListLanguages.language, language),
        ),
      )
      .limit(1);
    return row ?? null;
  },

  /** The languages stored for one version. */
  async languagesOf(db: Db, vendorListVersion: number): Promise<string[]> {
    const rows = await db
      .select({ language: tcfVendorListLanguages.language })
      .from(tcfVendorListLanguages)
      .where(eq(tcfVendorListLanguages.vendorListVersion, vendorListVersion));
    return rows.map((r) => r.language);
  },

  async insertLanguageFile(tx: Tx, row: VendorListLanguageRow): Promise<void> {
    await tx.insert(tcfVendorListLanguages).values(row).onConflictDoNothing();
  },

  async state(db: Db): Promise<MirrorStateRow | null> {
    const [row] = await db.select().from(tcfMirrorState).where(eq(tcfMirrorState.id, STATE_ID)).limit(1);
    return row ?? null;
  },

  async saveState(tx: Tx, state: Omit<MirrorStateRow, 'id'>): Promise<void> {
    await tx
      .insert(tcfMirrorState)
      .values({ id: STATE_ID, ...state })
      .onConflictDoUpdate({ target: tcfMirrorState.id, set: state });
  },

  /**
   * Makes the next fetch due now, creating the row when there is none yet: a row whose next fetch is
   * cleared is a fetch asked for, which the mirror runs even while no channel uses TCF.
   */
  async makeDue(tx: Tx): Promise<void> {
    await tx
      .insert(tcfMirrorState)
      .values({ id: STATE_ID, nextFetchAt: null })
      .onConflictDoUpdate({ target: tcfMirrorState.id, set: { nextFetchAt: null } });
  },

  /**
   * Asks for a fetch (the list is wanted and none is held): makes it due now, creating the row,
   * unless failed fetches put it off (consecutive failures: the mirror's back-off), which no ask
   * shortens, whoever asks and however often. True when it made the fetch due.
   */
  async askForFetch(tx: Tx): Promise<boolean> {
    const made = await tx
      .insert(tcfMirrorState)
      .values({ id: STATE_ID, nextFetchAt: null })
      .onConflictDoUpdate({
        target: tcfMirrorState.id,
        set: { nextFetchAt: null },
        setWhere: sql`${tcfMirrorState.consecutiveFailures} = 0`,
      })
      .returning({ id: tcfMirrorState.id });
    return made.length > 0;
  },

  /**
   * The `deviceStorageDisclosureUrl` of each of `vendorIds` in a stored version, read in SQL so that
   * the worker's every-minute run does not load the whole list; vendors without one are left out.
   */
  async disclosureUrls(db: Db, vendorListVersion: number, vendorIds: number[]): Promise<Map<number, string>> {
    if (vendorIds.length === 0) return new Map();
    const keys = vendorIds.map(String);
    const rows = await db
      .select({
        vendorId: sql<string>`v.key`,
        url: sql<string | null>`v.value ->> 'deviceStorageDisclosureUrl'`,
      })
      .from(sql`${tcfVendorLists}, jsonb_each(${tcfVendorLists.body} -> 'vendors') as v`)
      .where(
        and(
          eq(tcfVendorLists.vendorListVersion, vendorListVersion),
          sql`v.key in (${sql.join(
            keys.map((k) => sql`${k}`),
            sql`, `,
          )})`,
        ),
      );
    return new Map(
      rows.filter((r) => typeof r.url === 'string').map((r) => [Number(r.vendorId), r.url as string]),
    );
  },

  /** The disclosures stored for a version (fetched, or failed with their error). */
  async storageDisclosures(db: Db, vendorListVersion: number): Promise<StorageDisclosureRow[]> {
    return db
      .select()
      .from(tcfStorageDisclosures)
      .where(eq(tcfStorageDisclosures.vendorListVersion, vendorListVersion));
  },

  async saveStorageDisclosure(tx: Tx, row: StorageDisclosureRow): Promise<void> {
    const { vendorListVersion: _v, vendorId: _id, ...set } = row;
    await tx
      .insert(tcfStorageDisclosures)
      .values(row)
      .onConflictDoUpdate({
        target: [tcfStorageDisclosures.vendorListVersion, tcfStorageDisclosures.vendorId],
        set,
      });
  },
};
