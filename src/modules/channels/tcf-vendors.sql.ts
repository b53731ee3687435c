import { and, eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../../platform/db/store.ts';
import { channels } from './channels.tables.ts';

/**
 * The Global Vendor List ids active TCF channels use: the vendor list mirror fetches these vendors'
 * storage disclosures (and no others). Handed to the tcf module as a function (services.ts), like
 * tcfLanguagesInUse, since channels depends on tcf, not the other way round.
 */
export async function tcfVendorsInUse(db: Db): Promise<number[]> {
  const rows = await db
    .select({ tcf: channels.tcf })
    .from(channels)
    .where(and(isNotNull(channels.tcf), eq(channels.status, 'active')));
  const ids = new Set<number>();
  for (const row of rows) for (const id of row.tcf?.vendorIds ?? []) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}
