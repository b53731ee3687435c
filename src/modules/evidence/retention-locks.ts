import { sql } from 'drizzle-orm';
import { isDatabaseUnavailable, pgErrorOf } from '../../platform/db/pg-errors.ts';
import type { Store, Tx } from '../../platform/db/store.ts';

/**
 * How long retention waits for any one lock. Detaching or dropping a partition needs an ACCESS
 * EXCLUSIVE lock of its environment's table, and while it waits for one every tenant's read and
 * write of that table queues behind it: behind a long read (pg_dump, a long export) that would be
 * for as long as the read lasts. So it gives up soon and the partition waits for the next run.
 */
export const RETENTION_LOCK_TIMEOUT_MS = 200;
/**
 * The longest one statement that changes partitions may run, its lock waits included: a tenant
 * queued behind it waits no longer than this. Such a statement is a catalog change taking
 * milliseconds; the one that can take longer is attaching a test hour while the DEFAULT partition
 * holds many events (PostgreSQL scans it under its lock), and it is then left for a later run.
 */
export const RETENTION_DDL_TIMEOUT_MS = 800;

/** What a run of retention left for the next one. */
export type RetentionStep = 'create_partition' | 'drop_partition' | 'purge_rows';
/**
 * Why: a lock held by someone else for longer than RETENTION_LOCK_TIMEOUT_MS, a partition change
 * that outlasted RETENTION_DDL_TIMEOUT_MS, a partition the service's role may not change (owned by
 * another role), or another error.
 */
export type DeferReason = 'lock_timeout' | 'statement_timeout' | 'permission' | 'error';

export interface Deferred {
  step: RetentionStep;
  reason: DeferReason;
  /** The partition (create_partition, drop_partition) or the channel's events (purge_rows). */
  what: string;
  /** The SQLSTATE, when the database gave one. */
  code: string | null;
}

/** Told of every step a run leaves for the next one (metrics). */
export interface RetentionObserver {
  deferred(step: RetentionStep, reason: DeferReason): void;
  /** After each run: the expired partitions it could not drop. */
  partitionsWaiting(count: number): void;
}

/**
 * Runs fn in a transaction whose lock waits end after RETENTION_LOCK_TIMEOUT_MS (and, for a
 * partition change, whose statements end after RETENTION_DDL_TIMEOUT_MS), and whose statements are
 * planned with their values (plan_cache_mode = force_custom_plan): the service's connections
 * otherwise plan every statement once for any values, and for "the events of channel X" such a plan
 * may read a whole partition where X has none. The settings are local to the transaction, so they
 * never reach another use of its pooled connection.
 */
export function boundedTx<T>(store: Store, kind: 'ddl' | 'rows', fn: (tx: Tx) => Promise<T>): Promise<T> {
  return store.tx(async (tx) => {
    const lockTimeout = `${RETENTION_LOCK_TIMEOUT_MS}ms`;
    await tx.execute(
      kind === 'ddl'
        ? sql`select set_config('lock_timeout', ${lockTimeout}, true),
            set_config('statement_timeout', ${`${RETENTION_DDL_TIMEOUT_MS}ms`}, true),
            set_config('plan_cache_mode', 'force_custom_plan', true)`
        : sql`select set_config('lock_timeout', ${lockTimeout}, true),
            set_config('plan_cache_mode', 'force_custom_plan', true)`,
    );
    return fn(tx);
  });
}

/**
 * The step deferred for `error`, or the error itself when the database is out of reach: then the
 * whole run fails and the job runner retries it, rather than every step being deferred in turn.
 */
export function deferredBy(error: unknown, step: RetentionStep, what: string): Deferred {
  if (isDatabaseUnavailable(error)) throw error;
  const code = pgErrorOf(error)?.code ?? null;
  const reasons: Record<string, DeferReason> = {
    '55P03': 'lock_timeout',
    '57014': 'statement_timeout',
    '42501': 'permission',
  };
  const reason = (code && reasons[code]) || 'error';
  return { step, reason, what, code };
}
