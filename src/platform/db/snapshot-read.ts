import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * A read-only REPEATABLE READ transaction on PostgreSQL whose one snapshot every read of it sees:
 * a `COPY … TO STDOUT` streamed on its own connection, and queries run alongside on a second
 * connection that imports the snapshot (so they cost no time on the stream's connection). The
 * transaction statements (BEGIN, SET TRANSACTION SNAPSHOT, COMMIT, ROLLBACK) live here, not in the
 * module that reads.
 */
export interface SnapshotSession {
  /** `value` as an escaped SQL literal (COPY takes no bind parameters). */
  literal(value: string): string;
  /** The rows of `text` run by `COPY (text) TO STDOUT …` as the raw bytes PostgreSQL streams. */
  copyOut(copyStatement: string): AsyncIterable<Buffer>;
  /** Runs `text` in the same snapshot on a second connection, while the first one streams. */
  alongside<R>(text: string): Promise<R[]>;
}

/** Runs fn in a snapshot read on `pool` (see SnapshotSession); commits after fn, rolls back on failure. */
export async function readInSnapshot<T>(
  pool: pg.Pool,
  fn: (session: SnapshotSession) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await client.query<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot');
    const snapshot = rows[0].snapshot;
    const result = await fn({
      literal: (value) => client.escapeLiteral(value),
      copyOut: (copyStatement) => client.query(copyTo(copyStatement)) as unknown as AsyncIterable<Buffer>,
      alongside: (text) => alongside(pool, snapshot, text),
    });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function alongside<R>(pool: pg.Pool, snapshot: string, text: string): Promise<R[]> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET TRANSACTION SNAPSHOT ${client.escapeLiteral(snapshot)}`);
    const { rows } = await client.query(text);
    await client.query('COMMIT');
    return rows as R[];
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection left inside a failed transaction is not given back to the pool.
    client.release(failure);
  }
}
