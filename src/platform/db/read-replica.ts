import pg from 'pg';
import { NoServerFoundError } from './host-list-pool.ts';
import { connectionFailure, isCredentialsRefused, isDatabaseUnavailable, pgErrorOf } from './pg-errors.ts';

/** Why DATABASE_URL serves DATABASE_READ_URL's reads: it does not answer, or refuses the credentials. */
type Unwell = 'unavailable' | 'credentials_refused';
/** How DATABASE_READ_URL is doing: serving its reads, or why DATABASE_URL serves them. */
export type ReplicaState = 'ok' | Unwell;

/**
 * Why a read meant for the replica went to the primary: the replica was down or refused the
 * credentials, or (an export) it is not a standby in recovery of this primary, or it had not
 * replayed far enough in time.
 */
export const FALLBACK_REASONS = ['unavailable', 'credentials_refused', 'not_a_standby', 'behind'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

export interface ReplicaChange {
  state: ReplicaState;
  /** What the replica answered, in words (never its password); absent when it is back. */
  detail?: string;
  /** When it is asked again, while it is not ok. */
  retryInMs?: number;
}

/** What the app, the health check and the metrics see of the replica. */
export interface ReplicaHealth {
  state(): ReplicaState;
  /** The state after asking the replica now, when it is thought up (readiness checks). */
  check(timeoutMs: number): Promise<ReplicaState>;
  /** Reads sent to the primary instead, by reason, since the process started. */
  fallbacks(): Record<FallbackReason, number>;
  /** Called on every change of state (for a log line); returns the unsubscribe. */
  onChange(listener: (change: ReplicaChange) => void): () => void;
}

/** How long after a failure the replica is asked again: doubling from the first to the last. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** How often a waiting export asks the replica how far it has replayed. */
const POLL_MS = 50;

/** An error after which this read is better served by the primary, with the state it puts the replica in. */
function unusable(error: unknown): { state: Unwell | null } | null {
  if (isCredentialsRefused(error) || (error instanceof NoServerFoundError && error.credentialsRefused))
    return { state: 'credentials_refused' };
  // 3D000: no such database there (a replica being rebuilt, a typo).
  if (isDatabaseUnavailable(error) || pgErrorOf(error)?.code === '3D000') return { state: 'unavailable' };
  // A hot standby cancels a read that conflicts with what it replays (40001): this read only.
  if (pgErrorOf(error)?.code === '40001') return { state: null };
  return null;
}

/** What the replica answered, in words: a host list says what each host did (never a password). */
function detailOf(error: unknown): string {
  return error instanceof NoServerFoundError ? error.message : `the replica ${connectionFailure(error)}`;
}

/**
 * The pool of DATABASE_READ_URL's reads (a pg.Pool, so drizzle runs on it): each read goes to the
 * replica while it answers, and to the primary when it does not (down, refusing the password, no
 * such database), the read that found it so included. The replica is then asked again after a
 * back-off (1 s, doubling to 30 s) by one background query, not by every request, and takes its
 * reads back once it answers.
 */
export class ReplicaReadPool extends pg.Pool implements ReplicaHealth {
  private down: { state: Unwell; retryAt: number; gapMs: number } | null = null;
  private probing = false;
  private readonly counts = Object.fromEntries(FALLBACK_REASONS.map((r) => [r, 0])) as Record<
    FallbackReason,
    number
  >;
  private readonly changeListeners = new Set<(change: ReplicaChange) => void>();

  constructor(
    /** The replica's own pool (a HostListPool for a host list). */
    readonly replica: pg.Pool,
    private readonly primary: pg.Pool,
    private readonly settings: { maxRetryMs?: number } = {},
  ) {
    // Never connected itself: every client comes from the replica's pool or the primary's.
    super({ max: 1 });
    const count = (name: 'totalCount' | 'idleCount' | 'waitingCount') => ({ get: () => this.replica[name] });
    Object.defineProperties(this, {
      totalCount: count('totalCount'),
      idleCount: count('idleCount'),
      waitingCount: count('waitingCount'),
    });
  }

  // pg.Pool's overloads: only the promise forms are used (by drizzle and the snapshot reads).
  override query(config: any, values?: any, callback?: any): any {
    if (typeof values === 'function' || callback)
      throw new Error('ReplicaReadPool.query: use the promise form');
    return this.route((pool) => pool.query(config, values));
  }

  override connect(callback?: any): any {
    if (callback) throw new Error('ReplicaReadPool.connect: use the promise form');
    return this.route((pool) => pool.connect());
  }

  override end(callback?: any): any {
    if (callback) throw new Error('ReplicaReadPool.end: use the promise form');
    // The primary's pool is the store's to end.
    return Promise.all([super.end(), this.replica.end()]).then(() => undefined);
  }

  state(): ReplicaState {
    return this.down?.state ?? 'ok';
  }

  async check(timeoutMs: number): Promise<ReplicaState> {
    if (this.down) {
      this.probeWhenDue();
      return this.down.state;
    }
    // A failure marks the replica down even when it comes after the answer; a slow replica is
    // not taken for a failed one (its reads find out, at their own connection timeout).
    const ping = this.replica.query('select 1').then(
      () => {},
      (error: unknown) => {
        const verdict = unusable(error);
        if (verdict?.state) this.markDown(verdict.state, error);
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([ping, late]);
    clearTimeout(timer);
    return this.state();
  }

  fallbacks(): Record<FallbackReason, number> {
    return { ...this.counts };
  }

  onChange(listener: (change: ReplicaChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * The pool an export reads, one that has every transaction the primary committed before this
   * call: the replica's own pool only when it is a standby in recovery of this very primary (the
   * same system identifier) that has replayed the primary's current WAL position within
   * `timeoutMs`; the primary's otherwise. A read URL that is not a standby (a logical replica, a
   * promoted node, a copy) can be behind by any amount and cannot say so: it never serves an
   * export. The replica's own pool, not this one: a snapshot read must stay on one server.
   */
  async exportPool(timeoutMs: number): Promise<pg.Pool> {
    if (this.down) return this.fellBack(this.down.state);
    try {
      const [{ rows: at }, { rows: there }] = await Promise.all([
        this.primary.query(
          'select pg_current_wal_lsn()::text as lsn, (select system_identifier::text from pg_control_system()) as system',
        ),
        this.replica.query(
          'select pg_is_in_recovery() as in_recovery, (select system_identifier::text from pg_control_system()) as system',
        ),
      ]);
      if (there[0].in_recovery !== true || there[0].system !== at[0].system)
        return this.fellBack('not_a_standby');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { rows } = await this.replica.query(
          'select pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up',
          [at[0].lsn],
        );
        if (rows[0].caught_up === true) return this.replica;
        if (Date.now() >= deadline) return this.fellBack('behind');
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      const verdict = unusable(error);
      if (verdict?.state) this.markDown(verdict.state, error);
      return this.fellBack(verdict?.state ?? 'unavailable');
    }
  }

  private fellBack(reason: FallbackReason): pg.Pool {
    this.counts[reason]++;
    return this.primary;
  }

  private route<T>(run: (pool: pg.Pool) => Promise<T>): Promise<T> {
    if (this.down) {
      this.probeWhenDue();
      this.counts[this.down.state]++;
      return run(this.primary);
    }
    return run(this.replica).catch((error: unknown) => {
      const verdict = unusable(error);
      if (!verdict) throw error;
      if (verdict.state) this.markDown(verdict.state, error);
      this.counts[verdict.state ?? 'unavailable']++;
      return run(this.primary);
    });
  }

  private markDown(state: Unwell, error: unknown) {
    if (this.down) return;
    this.down = { state, retryAt: Date.now() + FIRST_RETRY_MS, gapMs: FIRST_RETRY_MS };
    this.notify({ state, detail: detailOf(error), retryInMs: FIRST_RETRY_MS });
  }

  /** One query to the replica once the back-off has passed; the reads meanwhile go to the primary. */
  private probeWhenDue() {
    const down = this.down;
    if (!down || this.probing || Date.now() < down.retryAt) return;
    this.probing = true;
    this.replica
      .query('select 1')
      .then(
        () => {
          this.down = null;
          this.notify({ state: 'ok' });
        },
        (error: unknown) => {
          const state = unusable(error)?.state ?? down.state;
          const changed = state !== down.state;
          down.state = state;
          down.gapMs = Math.min(down.gapMs * 2, this.settings.maxRetryMs ?? MAX_RETRY_MS);
          down.retryAt = Date.now() + down.gapMs;
          if (changed) this.notify({ state, detail: detailOf(error), retryInMs: down.gapMs });
        },
      )
      .finally(() => {
        this.probing = false;
      });
  }

  private notify(change: ReplicaChange) {
    for (const listener of this.changeListeners) listener(change);
  }
}
