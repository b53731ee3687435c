import type pg from 'pg';

/** How often a waiting export asks the replica how far it has replayed. */
const POLL_MS = 50;

/**
 * The replica's pool once it has replayed all the WAL the primary had written when called, so a
 * read there sees every transaction committed before (an export of events up to its request
 * time); the primary's pool when it has not within `timeoutMs`, or cannot say. A replica that is
 * not in recovery (the same server as the primary, say) has nothing to catch up.
 */
export async function caughtUpPool(primary: pg.Pool, replica: pg.Pool, timeoutMs: number): Promise<pg.Pool> {
  try {
    const { rows } = await primary.query('select pg_current_wal_lsn()::text as lsn');
    const lsn = rows[0].lsn as string;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows: at } = await replica.query(
        `select not pg_is_in_recovery() or pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up`,
        [lsn],
      );
      if (at[0].caught_up === true) return replica;
      if (Date.now() >= deadline) return primary;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch {
    return primary;
  }
}
