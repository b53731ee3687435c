import { retryAfterMs, type SendResult } from './webhook-sender.ts';

/** A destination whose attempts all failed for this long (5 days) is disabled. */
export const FAILING_DISABLE_MS = 5 * 86_400_000;
/** A receiver's Retry-After is honoured up to this; beyond it we retry at the cap. */
export const RETRY_AFTER_CAP_MS = 86_400_000;
const JITTER = 0.1;

/** What follows an attempt: the delivery's new state and what happens to its destination. */
export type NextStep =
  | { delivery: 'succeeded'; clearFailing: boolean }
  /** 410 Gone: the receiver asked never to be called again; the destination is disabled. */
  | { delivery: 'failed'; disable: 'gone' }
  | {
      /** Retried at `retryAt`, or failed for good when the schedule is spent. */
      delivery: 'retry' | 'failed';
      retryAt: Date | null;
      /** When the destination started failing, to be stored (null: already stored, or no destination). */
      markFailingSince: Date | null;
      /** Every attempt failed for FAILING_DISABLE_MS: the destination is disabled. */
      disable: 'failing' | null;
    };

export interface NextStepPolicy {
  /** Delays of retry 1, 2, … of a round, in seconds. */
  retryScheduleSeconds: number[];
  /** A number in [0, 1) spreading retries of deliveries that failed together; Math.random in use. */
  jitter: number;
}

/**
 * What comes after an attempt of `delivery` ended with `result` at `now`: pure, so the retry
 * schedule, Retry-After, 410 and the 5-day rule are tested without a receiver or a database.
 * `destination` is the destination as now stored (null if it is gone).
 */
export function nextStep(
  result: SendResult,
  delivery: { attemptCount: number; roundStartAttempt: number },
  destination: { failingSince: Date | null } | null,
  now: Date,
  policy: NextStepPolicy,
): NextStep {
  const status = result.status;
  if (status !== null && status >= 200 && status < 300)
    return { delivery: 'succeeded', clearFailing: destination?.failingSince != null };
  if (status === 410) return { delivery: 'failed', disable: 'gone' };
  const failingSince = destination?.failingSince ?? now;
  const markFailingSince = destination && !destination.failingSince ? now : null;
  const disable = now.getTime() - failingSince.getTime() >= FAILING_DISABLE_MS ? 'failing' : null;
  const retry = delivery.attemptCount + 1 - delivery.roundStartAttempt;
  const seconds = policy.retryScheduleSeconds[retry - 1];
  if (seconds === undefined) return { delivery: 'failed', retryAt: null, markFailingSince, disable };
  // Jitter spreads the retries of many deliveries that failed together (a receiver's outage).
  let delay = Math.round(seconds * 1000 * (1 + policy.jitter * JITTER));
  const asked = status === 429 || status === 503 ? retryAfterMs(result.retryAfter, now) : null;
  if (asked !== null) delay = Math.min(Math.max(asked, 1000), RETRY_AFTER_CAP_MS);
  return { delivery: 'retry', retryAt: new Date(now.getTime() + delay), markFailingSince, disable };
}
