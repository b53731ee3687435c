import type { Clock } from '../../platform/clock.ts';
import type { Db, DbScope, Store, Tx } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import type { EvidenceService } from '../evidence/evidence.service.ts';
import { type LedgerScope, ledgerRepo } from './ledger.repo.ts';
import type { LedgerLogRow, LedgerTreeHeadRow } from './ledger.tables.ts';
import { ledgerForksRepo } from './ledger-forks.repo.ts';
import { createForkGuard, forkReport } from './ledger-forks.ts';
import { createLedgerKeys } from './ledger-keys.ts';
import { createLedgerWitness } from './ledger-witness.ts';
import {
  consistencyRanges,
  inclusionRanges,
  type NodeHashes,
  nodesFor,
  type Range,
  rangeHash,
} from './merkle.ts';
import { createSealer } from './sealer.ts';
import type { TreeHead } from './signing.ts';

export function presentTreeHead(row: LedgerTreeHeadRow): TreeHead {
  return {
    logId: row.logId,
    treeSize: row.treeSize,
    rootHash: row.rootHash.toString('hex'),
    timestamp: apiDate(row.timestamp),
    keyId: row.keyId,
    signature: row.signature.toString('base64'),
  };
}

const notSealed = () =>
  new AppError(
    'evidence_not_sealed',
    'The event is not in a signed tree head yet; try again in a few seconds.',
  );

/** Why an event of a log halted on a fork stays unsealed (docs/guides/operate.md, "Ledger forks"). */
const haltedOnFork = (signedTreeSize: number) =>
  new AppError(
    'evidence_not_sealed',
    `The ledger stopped signing this log: its database no longer extends tree head ${signedTreeSize} that this ` +
      'service signed (a failover to a standby that had not received the last writes, or a restored backup). ' +
      'Events recorded since are sealed once an operator accepts the fork (consent-service ledger accept-fork; ' +
      'see the operations guide, "Ledger forks").',
  );

/** Proof lines for exports: one head, and the leaf index and audit path of each event under it. */
export interface Prover {
  treeHead: TreeHead;
  /** Events not covered by the head are absent from the result. */
  prove(eventIds: string[]): Promise<Map<string, { leafIndex: number; auditPath: string[] }>>;
}

/**
 * The verifiable evidence ledger (docs/decisions/ledger.md): the sealer, the signing keys, and the proofs.
 * Proofs read only perfect subtrees, which never change once written, so reads take no lock.
 */
export function createLedgerService(deps: {
  store: Store;
  clock: Clock;
  evidence: Pick<EvidenceService, 'get'>;
  signingKeyPem: string | null;
  dataDir: string;
  /** LEDGER_SEAL_SECONDS: the worker's interval between seals. */
  sealSeconds: number;
}) {
  const { store, clock, evidence } = deps;
  const keys = createLedgerKeys({ store, clock, configuredPem: deps.signingKeyPem, dataDir: deps.dataDir });
  // The newest heads signed, kept where a failover cannot take them back (ledger-witness.ts).
  const forkGuard = createForkGuard({ witness: createLedgerWitness(deps.dataDir), clock });
  const sealer = createSealer({ store, clock, keys, forks: forkGuard });

  /** The hex hashes of `ranges`, from one query for all the perfect subtrees they need. */
  async function hashesOf(db: Db, log: LedgerLogRow, ranges: Range[]): Promise<string[]> {
    const nodes: NodeHashes = await ledgerRepo.nodes(db, log, nodesFor(ranges));
    return ranges.map((range) => rangeHash(range, nodes).toString('hex'));
  }

  /** The 409 of an event not under a head: the log halted on a fork says so, with what to do. */
  async function unsealedBecause(db: DbScope, scope: LedgerScope): Promise<AppError> {
    const fork = await ledgerForksRepo.open(db.read, scope);
    return fork ? haltedOnFork(fork.signedTreeSize) : notSealed();
  }

  return {
    keys,
    sealer,

    /** Logs halted on a fork (docs/decisions/ledger.md, "Forks"): the CLI's view, and the metric's. */
    forks: {
      list: async (limit: number) =>
        (await ledgerForksRepo.list(store.db, limit)).map((row) => ({
          ...forkReport(row),
          signedRootHash: row.signedRootHash.toString('hex'),
          databaseLogId: row.databaseLogId,
          acceptedAt: row.acceptedAt,
        })),
      /** Forks not yet accepted, every organization: the metric's reading. */
      openCount: () => ledgerForksRepo.openCount(store.db),
      /**
       * The operator's decision that the database's tree is the log from now on: the scope's open
       * forks are accepted in `tx` (with its audit entry) and the sealer signs again.
       */
      accept: async (tx: Tx, scope: LedgerScope) =>
        (await ledgerForksRepo.accept(tx, scope, clock.now())).map(forkReport),
    },
    sealIntervalMs: deps.sealSeconds * 1000,

    /** The seal lag metric's reading (seconds the oldest unsealed event has waited, null when none). */
    sealLag: (now: Date) => ledgerRepo.sealLag(store.db, now),

    /** `GET /v1/evidence/:id/proof`: inclusion against the newest signed tree head. */
    async inclusionProof(db: DbScope, scope: LedgerScope, eventId: string) {
      const signed = await ledgerRepo.signedLog(db.read, scope, eventId);
      // Not a leaf: an event of this scope not sealed yet (409), or no such event here (404).
      if (!signed?.leaf) {
        await evidence.get(db, scope, eventId);
        throw await unsealedBecause(db, scope);
      }
      const { log, head, leaf } = signed;
      if (leaf.leafIndex >= head.treeSize) throw await unsealedBecause(db, scope);
      return {
        logId: log.id,
        leafIndex: leaf.leafIndex,
        leafHash: leaf.leafHash.toString('hex'),
        treeSize: head.treeSize,
        rootHash: head.rootHash.toString('hex'),
        auditPath: await hashesOf(db.read, log, inclusionRanges(leaf.leafIndex, head.treeSize)),
        treeHead: presentTreeHead(head),
      };
    },

    /** `GET /v1/evidence/consistency`: RFC 9162 §2.1.4 between two sizes up to the newest head. */
    async consistencyProof(db: DbScope, scope: LedgerScope, first: number, second: number) {
      const signed = await ledgerRepo.signedLog(db.read, scope);
      const current = signed?.head.treeSize ?? 0;
      if (!(first >= 1 && first <= second && second <= current)) {
        throw validationFailed(
          [
            {
              path: 'query:/first',
              message: `needs 1 ≤ first ≤ second ≤ ${current} (the newest tree head's size)`,
            },
          ],
          `first and second must satisfy 1 ≤ first ≤ second ≤ ${current}, the newest signed tree size.`,
        );
      }
      return { first, second, proof: await hashesOf(db.read, signed!.log, consistencyRanges(first, second)) };
    },

    /** `GET /v1/evidence/tree-heads`: newest first, limit + 1 rows. */
    async treeHeads(db: DbScope, scope: LedgerScope, limit: number, beforeSize: number | null) {
      const log = await ledgerRepo.findLog(db.read, scope);
      return log ? ledgerRepo.listTreeHeads(db.read, log, limit, beforeSize) : [];
    },

    /**
     * Signs a visitor receipt's statement (receipts/receipt-statement.ts) with the
     * current ledger key; its own prefix keeps it from ever reading as a tree head.
     */
    async signReceipt(statement: Buffer): Promise<{ keyId: string; value: string }> {
      const signer = await keys.signer();
      return { keyId: signer.keyId, value: signer.sign(statement).toString('base64') };
    },

    /** Every public key that signs or signed tree heads (`GET /v1/public/ledger-keys`). */
    publishedKeys: (db: DbScope) => keys.published(db),

    /**
     * For exports with includeProofs: seals what is queued for the scope, then proves events
     * against the newest head. Null when the scope has nothing sealed.
     */
    async prover(scope: LedgerScope): Promise<Prover | null> {
      await sealer.sealLog(scope, { maxBatches: Number.POSITIVE_INFINITY });
      // An export job's read, outside any request: the pool.
      const signed = await ledgerRepo.signedLog(store.db, scope);
      if (!signed) return null;
      const { log, head } = signed;
      return {
        treeHead: presentTreeHead(head),
        async prove(eventIds) {
          const leaves = (await ledgerRepo.findLeaves(store.db, log, eventIds)).filter(
            (l) => l.leafIndex < head.treeSize,
          );
          const paths = leaves.map((l) => inclusionRanges(l.leafIndex, head.treeSize));
          const nodes = await ledgerRepo.nodes(store.db, log, nodesFor(paths.flat()));
          return new Map(
            leaves.map((l, i) => [
              l.eventId,
              { leafIndex: l.leafIndex, auditPath: paths[i].map((r) => rangeHash(r, nodes).toString('hex')) },
            ]),
          );
        },
      };
    },
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
