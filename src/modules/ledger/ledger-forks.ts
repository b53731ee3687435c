import type { Clock } from '../../platform/clock.ts';
import type { Tx } from '../../platform/db/store.ts';
import { type LedgerScope, ledgerRepo } from './ledger.repo.ts';
import type { LedgerForkRow, LedgerTreeHeadRow } from './ledger.tables.ts';
import { ledgerForksRepo } from './ledger-forks.repo.ts';
import type { LedgerWitness } from './ledger-witness.ts';
import { rangeHash, rangeNodes } from './merkle.ts';

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
 */
export function createForkGuard(deps: { witness: LedgerWitness; clock: Clock }) {
  const { witness, clock } = deps;

  /** The root of the database's tree over its first `size` leaves, or null when it cannot be made. */
  async function rootOver(tx: Tx, scope: LedgerScope, logId: string, size: number): Promise<Buffer | null> {
    const log = await ledgerRepo.findLog(tx, scope);
    if (!log || log.id !== logId || log.treeSize < size) return null;
    const whole = { start: 0, end: size };
    try {
      return rangeHash(whole, await ledgerRepo.nodes(tx, log, rangeNodes(whole)));
    } catch {
      // A node or leaf the fold needs is missing: not the tree that was signed either.
      return null;
    }
  }

  return {
    /**
     * `ok` when the scope may be sealed; else the fork (recorded now if it is new, `recorded`
     * true for the sealer that recorded it). Runs in the sealer's transaction.
     */
    async verdict(
      tx: Tx,
      scope: LedgerScope,
    ): Promise<{ ok: true } | { ok: false; fork: ForkReport; recorded: boolean }> {
      const open = await ledgerForksRepo.open(tx, scope);
      if (open) return { ok: false, fork: forkReport(open), recorded: false };
      const signed = witness.read(scope);
      if (!signed) return { ok: true };
      const accepted = await ledgerForksRepo.lastAccepted(tx, scope);
      // Signed before an operator accepted the database's tree: superseded, not a new fork.
      if (accepted && signed.signedAt.getTime() <= accepted.getTime()) return { ok: true };
      const root = await rootOver(tx, scope, signed.logId, signed.treeSize);
      if (root?.equals(signed.rootHash)) return { ok: true };
      const log = await ledgerRepo.findLog(tx, scope);
      const row: LedgerForkRow = {
        ...scope,
        logId: signed.logId,
        signedTreeSize: signed.treeSize,
        signedRootHash: signed.rootHash,
        signedAt: signed.signedAt,
        databaseLogId: log?.id ?? null,
        databaseTreeSize: log?.treeSize ?? 0,
        detectedAt: clock.now(),
        acceptedAt: null,
      };
      const recorded = await ledgerForksRepo.record(tx, row);
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
