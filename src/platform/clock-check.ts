import { sql } from 'drizzle-orm';
import type { Clock } from './clock.ts';
import { readRows } from './db/rows.ts';
import type { Store } from './db/store.ts';
import { AppError } from './http/errors.ts';

/**
 * The service's clock against the database's (docs/decisions/evidence-times.md). Evidence times come
 * from the service's clock, and the database's is the one every replica and worker shares: a
 * replica whose clock is wrong would record decisions at a time a regulator cannot rely on, and that
 * the retention purge (run by a worker with a right clock) drops at once when it is far enough back.
 *
 * The offset (database minus service) is measured at start and every `intervalMs` with one query
 * (`clock_timestamp()`, the service's time taken at the middle of the round trip), and followed
 * between measurements by the monotonic clock: a step of the wall clock (an operator or NTP setting
 * it) moves the offset at once, before the next measurement confirms it. Past `maxSkewMs` either
 * way, `assertWithinBound` refuses (503 clock_skew): nothing is recorded at a time that is wrong.
 */
export interface ClockCheck {
  /** The offset now, in ms (database minus service), or null before a measurement succeeded. */
  offsetMs(): number | null;
  /** Throws 503 clock_skew when the offset is past the bound; cheap (no query). `what` opens its detail. */
  assertWithinBound(what: string): void;
  /** Whether the offset is past the bound (false before a measurement, or with the check off). */
  skewed(): boolean;
  /** One measurement against the database now; a failed query or a slow answer keeps the last one. */
  measure(): Promise<void>;
  /**
   * Measures, then again every interval until `stop` (the API and worker processes, not the CLI);
   * `onChange` is told when the offset crosses the bound either way (a log line for the operator).
   */
  start(onChange?: (state: { skewed: boolean; offsetMs: number }) => void): Promise<void>;
  stop(): void;
}

export interface ClockCheckOptions {
  store: Store;
  clock: Clock;
  /** The largest offset accepted, in ms; 0 turns the check off. */
  maxSkewMs: number;
  intervalMs: number;
  /** Told each measured offset (the metrics gauge). */
  onMeasured?: (offsetMs: number) => void;
  /** Told each refusal (the metrics counter). */
  onRefused?: () => void;
}

/** The wall and monotonic clocks at a measurement, and the database's offset then. */
interface Measurement {
  wall: number;
  mono: number;
  offset: number;
}

export function createClockCheck(options: ClockCheckOptions): ClockCheck {
  const { store, clock, maxSkewMs } = options;
  let last: Measurement | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let wasSkewed = false;
  let onChange: ((state: { skewed: boolean; offsetMs: number }) => void) | undefined;

  function offsetMs(): number | null {
    if (!last) return null;
    // How far the wall clock moved beside the monotonic one since the measurement: a step.
    const drift = clock.now().getTime() - last.wall - (performance.now() - last.mono);
    return last.offset - drift;
  }

  function skewed(): boolean {
    if (maxSkewMs === 0) return false;
    const offset = offsetMs();
    const now = offset !== null && Math.abs(offset) > maxSkewMs;
    if (now !== wasSkewed && offset !== null) {
      wasSkewed = now;
      onChange?.({ skewed: now, offsetMs: offset });
    }
    return now;
  }

  async function measure(): Promise<void> {
    const wall = clock.now().getTime();
    const mono = performance.now();
    let databaseMs: number;
    try {
      const [row] = await readRows<{ at: string | Date }>(store.db, sql`select clock_timestamp() as at`);
      databaseMs = new Date(row.at).getTime();
    } catch {
      return; // The database is away: its outage is reported elsewhere; the last offset is followed.
    }
    const roundTrip = performance.now() - mono;
    // An answer slower than the bound cannot tell an offset within it from one past it.
    if (maxSkewMs > 0 && roundTrip > maxSkewMs) return;
    const atMiddle = wall + roundTrip / 2;
    last = { wall: atMiddle, mono: mono + roundTrip / 2, offset: databaseMs - atMiddle };
    options.onMeasured?.(last.offset);
    skewed();
  }

  return {
    offsetMs,
    skewed,
    measure,
    assertWithinBound(what) {
      if (!skewed()) return;
      options.onRefused?.();
      const seconds = Math.round((offsetMs() ?? 0) / 1000);
      const way = seconds > 0 ? 'behind' : 'ahead of';
      throw new AppError(
        'clock_skew',
        `${what}: this server's clock is ${Math.abs(seconds)} s ${way} the database's, more than the ${maxSkewMs / 1000} s allowed (CLOCK_SKEW_MAX_SECONDS), so a time taken from it would be wrong. Synchronise the server's clock (NTP), then retry unchanged.`,
        { headers: { 'Retry-After': String(Math.max(1, Math.ceil(options.intervalMs / 1000))) } },
      );
    },
    async start(notify) {
      if (maxSkewMs === 0 || timer) return;
      onChange = notify;
      await measure();
      timer = setInterval(() => void measure(), options.intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
