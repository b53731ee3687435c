import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/store.ts';
import type { LedgerScope } from './ledger.repo.ts';
import type { LedgerForkRow, LedgerTreeHeadRow } from './ledger.tables.ts';
import { ledgerForksRepo } from './ledger-forks.repo.ts';
import type { LedgerWitness } from './ledger-witness.ts';

/** A fork as the sealer reports it (a log line, the CLI), without the hashes. */
export interface ForkReport {
  organizationId: string;
  environment: LedgerScope['environment'];
  logId: string;
  signedTreeSize: number;
  databaseTreeSize: number;
  detectedAt: Date;
}

export const forkReport = (row: LedgerForkRow): ForkReport => ({
  organizationId: row.organizationId,
  environment: row.environment,
  logId: row.logId,
  signedTreeSize: row.signedTreeSize,
  databaseTreeSize: row.databaseTreeSize,
  detectedAt: row.detectedAt,
});

/**
 * Whether the database's tree still extends the newest head a sealer signed (docs/decisions/ledger.md,
 * "Forks"). After a failover to a standby that had not received the primary's last writes, the
 * database has fewer leaves than a head already signed and handed out, or other leaves under the
 * same positions once new ones are appended: signing over it would publish a head that is not
 * consistent with that one. The sealer asks `verdict` before appending and before signing; a
 * mismatch is recorded (ledger_forks) and the log is not sealed until an operator accepts the fork.
 *
 * The comparison is with the database's own stored head of the remembered log and size: the head
 * row commits with the leaves it covers and is never deleted, so the database extends the
 * remembered head exactly when it holds that row with the same root. One primary-key lookup per
 * seal.
 */
export function createForkGuard(deps: { witness: LedgerWitness; clock: Clock }) {
  const { witness, clock } = deps;

  return {
    /**
     * `ok` when the scope may be sealed; else the fork, recorded now if it is new (`recorded`
     * true for the sealer that recorded it). `db` reads (the sealer's transaction, or the pool);
     * `tx` records a new fork.
     */
    async verdict(
      db: Db,
      scope: LedgerScope,
      record: (row: LedgerForkRow) => Promise<boolean>,
    ): Promise<{ ok: true } | { ok: false; fork: ForkReport; recorded: boolean }> {
      const signed = witness.read(scope);
      if (!signed) {
        const open = await ledgerForksRepo.open(db, scope);
        return open ? { ok: false, fork: forkReport(open), recorded: false } : { ok: true };
      }
      const found = await ledgerForksRepo.witnessCheck(db, scope, signed);
      if (found.open) {
        const open = await ledgerForksRepo.open(db, scope);
        if (open) return { ok: false, fork: forkReport(open), recorded: false };
      }
      // The database still holds the head signed, with the same root: it extends it.
      if (found.headRoot?.equals(signed.rootHash)) return { ok: true };
      // Signed before an operator accepted the database's tree: superseded, not a new fork.
      if (found.accepted && signed.signedAt.getTime() <= found.accepted.getTime()) return { ok: true };
      const row: LedgerForkRow = {
        ...scope,
        logId: signed.logId,
        signedTreeSize: signed.treeSize,
        signedRootHash: signed.rootHash,
        signedAt: signed.signedAt,
        databaseLogId: found.log?.id ?? null,
        databaseTreeSize: found.log?.treeSize ?? 0,
        detectedAt: clock.now(),
        acceptedAt: null,
      };
      const recorded = await record(row);
      return { ok: false, fork: forkReport(row), recorded };
    },

    /** Remembers a head once its transaction committed. */
    signed(scope: LedgerScope, head: LedgerTreeHeadRow): void {
      witness.write(scope, {
        logId: head.logId,
        treeSize: head.treeSize,
        rootHash: head.rootHash,
        signedAt: head.timestamp,
      });
    },
  };
}

export type ForkGuard = ReturnType<typeof createForkGuard>;
