import type { Clock } from '../../platform/clock.ts';
import type { Db, Store } from '../../platform/db/store.ts';
import { tcfRepo, type VendorListRow } from './tcf.repo.ts';

export type { VendorListRow } from './tcf.repo.ts';

/**
 * The IAB TCF module (docs/guides/tcf.md): the Global Vendor List mirror the worker keeps, and what
 * other modules ask of it (the newest list to check a channel's vendors against; whether a TC
 * string's vendor list version is one the service knows).
 */
export function createTcfService(deps: { store: Store; clock: Clock }) {
  void deps;
  return {
    /** The newest vendor list the mirror holds; null before the first successful fetch. */
    latestVendorList(db: Db): Promise<VendorListRow | null> {
      return tcfRepo.latest(db);
    },
    /** One version of the vendor list; null when the mirror never fetched it. */
    vendorList(db: Db, vendorListVersion: number): Promise<VendorListRow | null> {
      return tcfRepo.byVersion(db, vendorListVersion);
    },
  };
}

export type TcfService = ReturnType<typeof createTcfService>;
