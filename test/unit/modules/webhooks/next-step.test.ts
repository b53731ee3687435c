import { describe, expect, it } from 'vitest';
import {
  FAILING_DISABLE_MS,
  nextStep,
  RETRY_AFTER_CAP_MS,
} from '../../../../src/modules/webhooks/next-step.ts';
import type { SendResult } from '../../../../src/modules/webhooks/webhook-sender.ts';

const now = new Date('2026-03-01T12:00:00Z');
const policy = { retryScheduleSeconds: [5, 300, 1800], jitter: 0 };
const sent = (status: number | null, retryAfter: string | null = null): SendResult => ({
  status,
  retryAfter,
  error: status === null ? 'connection refused' : null,
  durationMs: 3,
});
const delivery = (attemptCount: number, roundStartAttempt = 0) => ({ attemptCount, roundStartAttempt });
const healthy = { failingSince: null };
const at = (ms: number) => new Date(now.getTime() + ms);

describe('nextStep', () => {
  it('a 2xx succeeds, and clears the failing mark only if one is stored', () => {
    expect(nextStep(sent(204), delivery(0), healthy, now, policy)).toEqual({
      delivery: 'succeeded',
      clearFailing: false,
    });
    expect(nextStep(sent(200), delivery(2), { failingSince: at(-60_000) }, now, policy)).toEqual({
      delivery: 'succeeded',
      clearFailing: true,
    });
  });

  it('follows the retry schedule within a round, then fails for good', () => {
    expect(nextStep(sent(500), delivery(0), healthy, now, policy)).toMatchObject({
      delivery: 'retry',
      retryAt: at(5_000),
      markFailingSince: now,
      disable: null,
    });
    expect(nextStep(sent(null), delivery(2), { failingSince: at(-1000) }, now, policy)).toMatchObject({
      delivery: 'retry',
      retryAt: at(1_800_000),
      markFailingSince: null,
    });
    // A new round (a manual retry) starts the schedule again.
    expect(nextStep(sent(500), delivery(4, 4), healthy, now, policy)).toMatchObject({ retryAt: at(5_000) });
    expect(nextStep(sent(500), delivery(3), healthy, now, policy)).toEqual({
      delivery: 'failed',
      retryAt: null,
      markFailingSince: now,
      disable: null,
    });
  });

  it('adds at most 10% jitter', () => {
    const step = nextStep(sent(500), delivery(1), healthy, now, { ...policy, jitter: 0.999 });
    expect(step).toMatchObject({ retryAt: at(Math.round(300_000 * 1.0999)) });
  });

  it('honours Retry-After on 429 and 503 (seconds or a date), bounded to [1 s, cap]', () => {
    expect(nextStep(sent(429, '120'), delivery(0), healthy, now, policy)).toMatchObject({
      retryAt: at(120_000),
    });
    expect(
      nextStep(sent(503, new Date(now.getTime() + 600_000).toUTCString()), delivery(0), healthy, now, policy),
    ).toMatchObject({ retryAt: at(600_000) });
    expect(nextStep(sent(429, '0'), delivery(0), healthy, now, policy)).toMatchObject({ retryAt: at(1000) });
    expect(nextStep(sent(429, '999999'), delivery(0), healthy, now, policy)).toMatchObject({
      retryAt: at(RETRY_AFTER_CAP_MS),
    });
    // Only 429 and 503 carry a Retry-After we honour; and never past the end of the schedule.
    expect(nextStep(sent(500, '120'), delivery(0), healthy, now, policy)).toMatchObject({
      retryAt: at(5_000),
    });
    expect(nextStep(sent(429, '120'), delivery(3), healthy, now, policy)).toMatchObject({
      delivery: 'failed',
    });
  });

  it('410 Gone fails the delivery and disables the destination at once', () => {
    expect(nextStep(sent(410), delivery(0), healthy, now, policy)).toEqual({
      delivery: 'failed',
      disable: 'gone',
    });
  });

  it('disables a destination whose attempts all failed for 5 days, and still schedules the retry', () => {
    const almost = { failingSince: at(-FAILING_DISABLE_MS + 1) };
    expect(nextStep(sent(500), delivery(1), almost, now, policy)).toMatchObject({ disable: null });
    const fiveDays = { failingSince: at(-FAILING_DISABLE_MS) };
    expect(nextStep(sent(500), delivery(1), fiveDays, now, policy)).toMatchObject({
      delivery: 'retry',
      disable: 'failing',
      markFailingSince: null,
    });
  });

  it('a destination no longer stored is not marked', () => {
    expect(nextStep(sent(500), delivery(0), null, now, policy)).toMatchObject({ markFailingSince: null });
  });
});

// store-independent: webhook retry steps, pure functions
