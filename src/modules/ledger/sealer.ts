import type { Clock } from '../../platform/clock.ts';
import type { Db, Store, Tx } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { type LedgerScope, ledgerRepo } from './ledger.repo.ts';
import type { LedgerLogRow, LedgerTreeHeadRow } from './ledger.tables.ts';
import { ledgerForksRepo } from './ledger-forks.repo.ts';
import type { ForkGuard, ForkReport } from './ledger-forks.ts';
import type { LedgerKeys } from './ledger-keys.ts';
import { ledgerQueueRepo, type PendingLeaf } from './ledger-queue.repo.ts';
import { appendLeaves, frontierOf, rangeHash, rangeNodes } from './merkle.ts';
import { isStoredNode } from './merkle-blocks.ts';
import { treeHeadMessage } from './signing.ts';

/**
 * Leaves per append transaction, which bounds how long a log's lock and the rows' locks are held.
 * On PostgreSQL a batch holds up only the log's other sealers, and its fixed costs (a commit's WAL
 * flush, a dozen round trips) are most of a small batch's time, so batches are large. PGlite serves
 * one session at a time: there a batch holds up every request, so it stays short.
 */
export const SEAL_BATCH: Record<Store['kind'], number> = { postgres: 5000, embedded: 1000 };
/** Batches per log per run, so a run ends (and signs) even with a large backlog; the next run goes on. */
export const MAX_BATCHES_PER_RUN = 50;

/**
 * The sealer (docs/decisions/ledger.md) in two steps, each its own transaction under the log's advisory lock:
 *
 * 1. `appendBatch`: takes the next queued events (recordedAt, id order), appends them as leaves,
 *    writes the stored perfect subtrees they complete, removes them from the queue, moves tree_size.
 * 2. `signHead`: if tree_size > signed_size, computes the root from stored subtrees, signs it,
 *    stores the tree head and moves signed_size.
 *
 * A crash between the steps leaves appended but unsigned leaves: nothing reads them (proofs are
 * against the newest signed head), and the next run's `signHead` covers them. Late arrivals (an
 * event committed after later-recorded events were sealed) are appended when they are seen, so
 * a log's order is recordedAt order within each batch and sealing order across batches. (Within a
 * run each batch reads on from where the previous one ended, so one that arrives late behind that
 * point during the run is seen by the next run.)
 *
 * Before either step it asks the fork guard (ledger-forks.ts) whether the database's tree still
 * extends the newest head a sealer signed: after a failover to a standby that missed the last
 * writes it does not, and the log is neither appended to nor signed until an operator accepts the
 * fork. Each fork is reported once per process (`sealAll` returns the ones it found).
 */
export function createSealer(deps: { store: Store; clock: Clock; keys: LedgerKeys; forks: ForkGuard }) {
  const { store, clock, keys, forks } = deps;
  /** Forks this process found and has not handed to `sealAll`'s caller yet, and those it did (by key). */
  let found: ForkReport[] = [];
  const reported = new Set<string>();
  const note = (fork: ForkReport) => {
    const key = `${fork.organizationId}/${fork.logId}/${fork.signedTreeSize}`;
    if (reported.has(key)) return;
    reported.add(key);
    found.push(fork);
  };

  /**
   * The fork guard's verdict: true when the scope may be sealed (a fork is noted). Read on `db`
   * (the sealer's transaction, or the pool); a new fork is recorded in `tx`, or in a transaction
   * of its own.
   */
  async function mayExtend(db: Db, scope: LedgerScope, tx?: Tx): Promise<boolean> {
    const verdict = await forks.verdict(db, scope, (row) =>
      tx ? ledgerForksRepo.record(tx, row) : store.tx((own) => ledgerForksRepo.record(own, row)),
    );
    if (!verdict.ok) note(verdict.fork);
    return verdict.ok;
  }

  async function logOf(tx: Tx, scope: LedgerScope): Promise<LedgerLogRow> {
    const existing = await ledgerRepo.findLog(tx, scope);
    if (existing) return existing;
    await ledgerRepo.ensureLog(tx, scope, `log_${randomBase62(22)}`, clock.now());
    return (await ledgerRepo.findLog(tx, scope))!;
  }

  /** Under the lock (held until `tx` ends), the log as it is now (another sealer may have moved it while we waited). */
  async function lockedLog(tx: Tx, scope: LedgerScope): Promise<LedgerLogRow> {
    const log = await logOf(tx, scope);
    await ledgerRepo.lockLog(tx, log.id);
    return (await ledgerRepo.findLog(tx, scope))!;
  }

  /** Step 1 after `after` (the same run's previous batch, if any): the events appended, in order. */
  function appendAfter(scope: LedgerScope, limit: number, after: PendingLeaf | null): Promise<PendingLeaf[]> {
    return store.tx(async (tx) => {
      const log = await lockedLog(tx, scope);
      const leaves = await ledgerQueueRepo.next(tx, scope, limit, after);
      if (leaves.length === 0) return leaves;
      const size = log.treeSize;
      const frontier = await ledgerRepo.nodes(tx, log, frontierOf(size));
      const hashes = leaves.map((l) => Buffer.from(l.leafHash, 'hex'));
      const nodes = appendLeaves(size, frontier, hashes).filter(isStoredNode);
      await ledgerQueueRepo.append(tx, { log, size, leaves, nodes });
      return leaves;
    });
  }

  const sealer = {
    /** Step 1: appends up to `limit` queued events; returns how many. */
    async appendBatch(scope: LedgerScope, limit = SEAL_BATCH[store.kind]): Promise<number> {
      return (await appendAfter(scope, limit, null)).length;
    },

    /** Step 2: signs the log's current size if no head covers it yet; returns the new head, if any. */
    async signHead(scope: LedgerScope): Promise<LedgerTreeHeadRow | null> {
      const signer = await keys.signer();
      const signed = await store.tx(async (tx) => {
        // Asked first: a log the database lost must not be made again under the same scope.
        if (!(await mayExtend(tx, scope, tx))) return null;
        const log = await lockedLog(tx, scope);
        if (log.treeSize === log.signedSize) return null;
        const whole = { start: 0, end: log.treeSize };
        const root = rangeHash(whole, await ledgerRepo.nodes(tx, log, rangeNodes(whole)));
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
          environment: log.environment,
          logId: log.id,
          treeSize: log.treeSize,
          rootHash: root,
          timestamp: new Date(timestamp),
          keyId: signer.keyId,
          signature: signer.sign(message),
        };
        await ledgerRepo.insertTreeHead(tx, head);
        await ledgerRepo.setSizes(tx, log, { signedSize: log.treeSize });
        return head;
      });
      // Committed: remembered where a failover of the database cannot take it back.
      if (signed) forks.signed(scope, signed);
      return signed;
    },

    /** Appends what is queued for one log (up to `maxBatches` batches), then signs. */
    async sealLog(scope: LedgerScope, options: { maxBatches?: number; batch?: number } = {}) {
      const batch = options.batch ?? SEAL_BATCH[store.kind];
      const maxBatches = options.maxBatches ?? MAX_BATCHES_PER_RUN;
      if (!(await mayExtend(store.db, scope))) return { appended: 0, head: null, forked: true };
      let appended = 0;
      let last: PendingLeaf | null = null;
      for (let i = 0; i < maxBatches; i++) {
        const leaves = await appendAfter(scope, batch, last);
        appended += leaves.length;
        if (leaves.length < batch) break;
        last = leaves[leaves.length - 1];
      }
      const head = await sealer.signHead(scope);
      return { appended, head, forked: false };
    },

    /**
     * The `ledger.seal` task: every log with queued events or unsigned leaves. `forks`: the forks
     * this process found since the last call (each once), for the worker to log.
     */
    async sealAll(): Promise<{ logs: number; appended: number; forks: ForkReport[] }> {
      const scopes = await ledgerRepo.scopesToSeal(store.db);
      let appended = 0;
      for (const scope of scopes) appended += (await sealer.sealLog(scope)).appended;
      // A run that failed part way hands its forks over with the next one.
      const newly = found;
      found = [];
      return { logs: scopes.length, appended, forks: newly };
    },
  };
  return sealer;
}

export type Sealer = ReturnType<typeof createSealer>;
