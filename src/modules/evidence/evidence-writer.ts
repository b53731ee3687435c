import type { Clock } from '../../platform/clock.ts';
import { createGroupCommit } from '../../platform/db/group-commit.ts';
import type { Store } from '../../platform/db/store.ts';
import type { IdempotencyRecord, KeyRecordOutcome } from '../../platform/idempotency/idempotency.scope.ts';
import type { OutboxJob } from './consent-write.sql.ts';
import { type ConsentWrite, createConsentWriteStatement } from './consent-write.ts';
import type { EvidenceRow } from './evidence.tables.ts';
import { createPartitionsFor, isMissingPartition } from './partitions.ts';

/** Most writes in one statement: a failed batch is retried item by item, so it stays short. */
const MAX_BATCH = 128;
/**
 * Batches committing at once on PostgreSQL, each on its own pooled connection: while one waits for
 * its WAL flush the next is already sent. Below the pool's 10 connections, leaving room for reads.
 * PGlite has one connection and runs statements in turn: one batch at a time, the rest gather.
 */
const MAX_IN_FLIGHT = { postgres: 4, embedded: 1 } as const;
/**
 * While a batch commits, the next starts only once this many writes wait; until then they gather.
 * Every batch costs a round trip, a statement and a commit, in Node and in PostgreSQL: with a
 * second batch started at once, 10 or 32 connections made batches of 3–6 writes, and on 2 cores
 * shared by the service, PostgreSQL and the load, that CPU was the limit (bench/writepath.ts:
 * see README "Benchmarks", b). A burst of more still overlaps, up to MAX_IN_FLIGHT.
 */
const MIN_BATCH_WHILE_BUSY = 32;

/**
 * Writes consent events, the hot path of the service (bench b): concurrent writes are grouped
 * (platform/db/group-commit.ts) and each group is one SQL statement (consent-write.sql.ts) that
 * stores the Idempotency-Key records, the events of the writes that won their key, their ledger
 * queue rows and their consent.recorded outbox rows. Every write resolves only after that
 * statement committed.
 */
export function createEvidenceWriter(deps: { store: Store; clock: Clock; outbox: OutboxJob | null }) {
  const { store, clock } = deps;
  const statement = createConsentWriteStatement(store, deps.outbox);

  const groupCommit = createGroupCommit({
    commit: async (writes: ConsentWrite[]) => {
      try {
        return await statement.run(writes, clock.now());
      } catch (error) {
        // A live event whose month has no partition yet: make it and write again (partitions.ts).
        if (!isMissingPartition(error)) throw error;
        await createPartitionsFor(
          store,
          writes.flatMap((w) => w.rows),
        );
        return statement.run(writes, clock.now());
      }
    },
    maxBatch: MAX_BATCH,
    maxInFlight: MAX_IN_FLIGHT[store.kind],
    minBatchWhileBusy: MIN_BATCH_WHILE_BUSY,
  });

  return {
    /**
     * Writes a request's events in the next group commit, with its Idempotency-Key record when it
     * has one; resolves once that statement committed. `taken`: the key was held, and nothing of
     * this request was written.
     */
    writeEvents: (rows: EvidenceRow[], record: IdempotencyRecord | null): Promise<KeyRecordOutcome> =>
      groupCommit.submit({ rows, record }),
  };
}
