import { desc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/store.ts';
import { tcfVendorLists } from './tcf.tables.ts';

export type VendorListRow = typeof tcfVendorLists.$inferSelect;

/** All SQL of the vendor list mirror's tables (tcf.tables.ts). */
export const tcfRepo = {
  async latest(db: Db): Promise<VendorListRow | null> {
    const [row] = await db
      .select()
      .from(tcfVendorLists)
      .orderBy(desc(tcfVendorLists.vendorListVersion))
      .limit(1);
    return row ?? null;
  },

  async byVersion(db: Db, vendorListVersion: number): Promise<VendorListRow | null> {
    const [row] = await db
      .select()
      .from(tcfVendorLists)
      .where(eq(tcfVendorLists.vendorListVersion, vendorListVersion))
      .limit(1);
    return row ?? null;
  },
};
