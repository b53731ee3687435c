import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { type LedgerScope, ledgerRepo } from './ledger.repo.ts';
import type { LedgerLogRow, LedgerTreeHeadRow } from './ledger.tables.ts';
import type { LedgerKeys } from './ledger-keys.ts';
import { appendLeaves, frontierOf, rangeHash, rangeNodes } from './merkle.ts';
import { treeHeadMessage } from './signing.ts';

/** Leaves per append transaction: bounds how long a log's lock and the rows' locks are held. */
export const SEAL_BATCH = 1000;
/** Batches per log per run, so a run ends (and signs) even with a large backlog; the next run goes on. */
export const MAX_BATCHES_PER_RUN = 50;

/**
 * The sealer (contract §14) in two steps, each its own transaction under the log's advisory lock:
 *
 * 1. `appendBatch`: takes the next queued events (recordedAt, id order), appends them as leaves,
 *    writes the perfect subtrees they complete, removes them from the queue, moves tree_size.
 * 2. `signHead`: if tree_size > signed_size, computes the root from stored subtrees, signs it,
 *    stores the tree head and moves signed_size.
 *
 * A crash between the steps leaves appended but unsigned leaves: nothing reads them (proofs are
 * against the newest signed head), and the next run's `signHead` covers them. Late arrivals (an
 * event committed after later-recorded events were sealed) are appended when they are seen, so
 * a log's order is recordedAt order within each batch and sealing order across batches.
 */
export function createSealer(deps: { store: Store; clock: Clock; keys: LedgerKeys }) {
  const { store, clock, keys } = deps;

  async function logOf(scope: LedgerScope): Promise<LedgerLogRow> {
    const existing = await ledgerRepo.findLog(store.db, scope);
    if (existing) return existing;
    await ledgerRepo.ensureLog(store.db, scope, `log_${randomBase62(22)}`, clock.now());
    return (await ledgerRepo.findLog(store.db, scope))!;
  }

  /** Under the lock, the log as it is now (another sealer may have moved it while we waited). */
  async function lockedLog(scope: LedgerScope): Promise<LedgerLogRow> {
    const log = await logOf(scope);
    await ledgerRepo.lockLog(store.db, log.id);
    return (await ledgerRepo.findLog(store.db, scope))!;
  }

  const sealer = {
    /** Step 1: appends up to `limit` queued events; returns how many. */
    appendBatch(scope: LedgerScope, limit = SEAL_BATCH): Promise<number> {
      return store.tx(async () => {
        const log = await lockedLog(scope);
        const pending = await ledgerRepo.pendingBatch(store.db, scope, limit);
        if (pending.length === 0) return 0;
        const size = log.treeSize;
        const frontier = await ledgerRepo.nodes(store.db, log, frontierOf(size));
        const hashes = pending.map((p) => Buffer.from(p.leafHash, 'hex'));
        const created = appendLeaves(size, frontier, hashes);
        await ledgerRepo.insertLeaves(
          store.db,
          log,
          pending.map((p, i) => ({ leafIndex: size + i, eventId: p.eventId, leafHash: hashes[i] })),
        );
        await ledgerRepo.insertNodes(
          store.db,
          log,
          created.filter((n) => n.level > 0),
        );
        await ledgerRepo.deletePending(
          store.db,
          scope.organizationId,
          pending.map((p) => p.eventId),
        );
        await ledgerRepo.setSizes(store.db, log, { treeSize: size + pending.length });
        return pending.length;
      });
    },

    /** Step 2: signs the log's current size if no head covers it yet; returns the new head, if any. */
    async signHead(scope: LedgerScope): Promise<LedgerTreeHeadRow | null> {
      const signer = await keys.signer();
      return store.tx(async () => {
        const log = await lockedLog(scope);
        if (log.treeSize === log.signedSize) return null;
        const whole = { start: 0, end: log.treeSize };
        const root = rangeHash(whole, await ledgerRepo.nodes(store.db, log, rangeNodes(whole)));
        // The API's date format; the signed string is exactly what the tree head shows.
        const timestamp = apiDate(clock.now());
        const message = treeHeadMessage({
          logId: log.id,
          treeSize: log.treeSize,
          rootHash: root.toString('hex'),
          timestamp,
        });
        const head: LedgerTreeHeadRow = {
          organizationId: log.organizationId,
          logId: log.id,
          treeSize: log.treeSize,
          rootHash: root,
          timestamp: new Date(timestamp),
          keyId: signer.keyId,
          signature: signer.sign(message),
        };
        await ledgerRepo.insertTreeHead(store.db, head);
        await ledgerRepo.setSizes(store.db, log, { signedSize: log.treeSize });
        return head;
      });
    },

    /** Appends what is queued for one log (up to `maxBatches` batches), then signs. */
    async sealLog(scope: LedgerScope, options: { maxBatches?: number; batch?: number } = {}) {
      const batch = options.batch ?? SEAL_BATCH;
      const maxBatches = options.maxBatches ?? MAX_BATCHES_PER_RUN;
      let appended = 0;
      for (let i = 0; i < maxBatches; i++) {
        const n = await sealer.appendBatch(scope, batch);
        appended += n;
        if (n < batch) break;
      }
      const head = await sealer.signHead(scope);
      return { appended, head };
    },

    /** The `ledger.seal` task: every log with queued events or unsigned leaves. */
    async sealAll(): Promise<{ logs: number; appended: number }> {
      const scopes = await ledgerRepo.scopesToSeal(store.db);
      let appended = 0;
      for (const scope of scopes) appended += (await sealer.sealLog(scope)).appended;
      return { logs: scopes.length, appended };
    },
  };
  return sealer;
}

export type Sealer = ReturnType<typeof createSealer>;
