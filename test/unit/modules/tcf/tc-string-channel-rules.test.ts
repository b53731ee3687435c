import { describe, expect, it } from 'vitest';
import { thirteenMonthsBefore } from '../../../../src/modules/tcf/tc-strings/tc-string-channel-rules.ts';

/**
 * tc_last_updated's bound (docs/guides/tcf.md, "What the service refuses"): 13 calendar months
 * before today, in whole UTC days, whatever the day of the month or the year.
 */
describe('thirteenMonthsBefore', () => {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  it('is the same day 13 months back, across a year', () => {
    expect(day(thirteenMonthsBefore(new Date('2026-12-02T15:00:00Z')))).toBe('2025-11-02');
    expect(day(thirteenMonthsBefore(new Date('2027-01-01T00:00:00Z')))).toBe('2025-12-01');
    expect(day(thirteenMonthsBefore(new Date('2026-12-31T23:59:59Z')))).toBe('2025-11-30');
  });

  it('is the month’s last day when that month is shorter', () => {
    expect(day(thirteenMonthsBefore(new Date('2027-03-31T12:00:00Z')))).toBe('2026-02-28');
    expect(day(thirteenMonthsBefore(new Date('2029-03-30T00:00:00Z')))).toBe('2028-02-29');
  });
});

// store-independent: a pure date function
