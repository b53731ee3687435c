import { createGroupCommit } from '../../platform/db/group-commit.ts';
import type { Store } from '../../platform/db/store.ts';
import type { UnitOfWork } from '../../platform/db/unit-of-work.ts';
import { idempotencyRepo, recordKeyId } from '../../platform/idempotency/idempotency.repo.ts';
import type { StagedCommitOutcome } from '../../platform/idempotency/idempotency.scope.ts';
import type { IdempotencyRecord } from '../../platform/idempotency/idempotency.tables.ts';
import { presentEvidence } from './evidence.presenters.ts';
import { evidenceRepo } from './evidence.repo.ts';
import type { EventOutbox } from './evidence.service.ts';
import type { EvidenceRow } from './evidence.tables.ts';

/** One request's share of a group commit: its events, and the Idempotency-Key record they commit with. */
interface EvidenceWrite {
  rows: EvidenceRow[];
  record: IdempotencyRecord | null;
}

/** Most writes in one transaction: a failed batch is retried item by item, so it stays short. */
const MAX_BATCH = 128;
/** Below the PostgreSQL pool's 10 connections, leaving room for reads; PGlite runs them in turn. */
const MAX_IN_FLIGHT = 4;

/**
 * Writes consent events, the hot path of the service (bench b): concurrent writes share one
 * transaction of multi-row statements (platform/db/group-commit.ts), each with its consent.recorded
 * outbox event and, for a request with an Idempotency-Key, the key's record. Every write resolves
 * only after its transaction committed.
 */
export function createEvidenceWriter(deps: { store: Store; events?: EventOutbox }) {
  const { store } = deps;

  /** The events and their outbox events, in the caller's transaction or a new one. */
  const writeEvents = (rows: EvidenceRow[]) =>
    store.tx(async (tx) => {
      await evidenceRepo.insertMany(tx, rows);
      await deps.events?.emitMany(
        rows.map((row) => ({
          type: 'consent.recorded' as const,
          organizationId: row.organizationId,
          environment: row.environment,
          data: presentEvidence(row),
        })),
      );
    });

  /**
   * A key's record goes in first: a write whose key is already taken (by a live record, or by an
   * earlier write of the same batch) drops its events and reports `taken`, so that request
   * replays the response of the one that won, and one key never makes two events.
   */
  const commitBatch = (writes: EvidenceWrite[]) =>
    store.tx(async (tx) => {
      const outcomes: StagedCommitOutcome[] = writes.map(() => 'stored');
      const competing = new Map<string, IdempotencyRecord>();
      writes.forEach((write, i) => {
        if (!write.record) return;
        const id = recordKeyId(write.record);
        if (competing.has(id)) outcomes[i] = 'taken';
        else competing.set(id, write.record);
      });
      const stored = await idempotencyRepo.insertUnlessLive(tx, [...competing.values()]);
      writes.forEach((write, i) => {
        if (write.record && outcomes[i] === 'stored' && !stored.has(recordKeyId(write.record)))
          outcomes[i] = 'taken';
      });
      await writeEvents(writes.filter((_, i) => outcomes[i] === 'stored').flatMap((write) => write.rows));
      return outcomes;
    });

  const groupCommit = createGroupCommit({
    commit: commitBatch,
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT,
  });

  return {
    /** Writes one event: inside the caller's transaction if there is one, else with the next group commit. */
    async write(row: EvidenceRow): Promise<void> {
      if (store.inTransaction()) await writeEvents([row]);
      else await groupCommit.submit({ rows: [row], record: null });
    },

    /**
     * The preferences route's `commitStaged` (see RouteIdempotency): the events its handler staged,
     * with the key's record. Only evidence events are staged in a consent write's unit.
     */
    commitStaged: (unit: UnitOfWork, record: IdempotencyRecord): Promise<StagedCommitOutcome> =>
      groupCommit.submit({ rows: unit.staged as EvidenceRow[], record }),
  };
}
