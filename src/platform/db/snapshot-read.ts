import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * A read-only REPEATABLE READ transaction on PostgreSQL, read in short batches: every batch sees the
 * transaction's one snapshot, yet holds its table locks only while it runs. Each batch runs in a
 * savepoint that is rolled back when the batch ends, and PostgreSQL releases the locks taken since
 * a savepoint when it is rolled back to: between batches the transaction holds its snapshot and no
 * table lock, so a statement that needs an ACCESS EXCLUSIVE lock (retention detaching a partition)
 * gets it between two batches instead of waiting, with every tenant queued behind it, for the whole
 * read. The transaction statements (BEGIN, SAVEPOINT, COMMIT, ROLLBACK) live here, not in the module
 * that reads.
 */
export interface SnapshotSession {
  /** `value` as an escaped SQL literal (COPY takes no bind parameters). */
  literal(value: string): string;
  /** Runs fn as one batch (see above): its reads' locks are released when it settles. */
  batch<T>(fn: (reads: SnapshotBatch) => Promise<T>): Promise<T>;
}

/** The reads of one batch, in the snapshot. */
export interface SnapshotBatch {
  /** The rows of `COPY (…) TO STDOUT …` as the raw bytes PostgreSQL streams. */
  copyOut(copyStatement: string): AsyncIterable<Buffer>;
  /** The rows of `text`, a query without parameters. */
  query<R>(text: string): Promise<R[]>;
}

/** Runs fn in a snapshot read on `pool` (see SnapshotSession); commits after fn, rolls back on failure. */
export async function readInSnapshot<T>(
  pool: pg.Pool,
  fn: (session: SnapshotSession) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await fn({
      literal: (value) => client.escapeLiteral(value),
      batch: async (read) => {
        await client.query('SAVEPOINT snapshot_batch');
        const answer = await read({
          copyOut: (copyStatement) => client.query(copyTo(copyStatement)) as unknown as AsyncIterable<Buffer>,
          query: async <R>(text: string) => (await client.query(text)).rows as R[],
        });
        // Releases the locks the batch took; the snapshot is the transaction's and stays.
        await client.query('ROLLBACK TO SAVEPOINT snapshot_batch');
        return answer;
      },
    });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection that failed mid-read (a COPY cut short, a batch that threw) may still be inside
    // its COPY or its transaction: it is closed rather than given back to the pool.
    client.release(failure);
  }
}
