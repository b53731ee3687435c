import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import { notFound, validationFailed } from '../../platform/http/errors.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import {
  type AnalyticsScope,
  analyticsRepo,
  type CountRow,
  type GroupBy,
  type Interval,
  type PurposeCountRow,
} from './analytics.repo.ts';
import { createImpressionCounter, type ImpressionKey } from './impressions.ts';

export { ImpressionBody } from './analytics.schemas.ts';
export { analyticsCtes } from './analytics.sql.ts';
export type { ImpressionKey } from './impressions.ts';

const DAY_MS = 86_400_000;
/** The longest range one query may cover (contract §18): a year, leap day included. */
export const MAX_RANGE_DAYS = 366;

type Counts = Omit<CountRow, 'period' | 'group'> & {
  purposes: Record<string, { granted: number; denied: number }>;
};

const zero = (): Counts => ({
  impressions: 0,
  decisions: 0,
  acceptAll: 0,
  rejectAll: 0,
  custom: 0,
  gpc: 0,
  purposes: {},
});

function addCounts(into: Counts, row: Omit<CountRow, 'period' | 'group'>) {
  into.impressions += row.impressions;
  into.decisions += row.decisions;
  into.acceptAll += row.acceptAll;
  into.rejectAll += row.rejectAll;
  into.custom += row.custom;
  into.gpc += row.gpc;
}

function addPurpose(into: Counts, row: PurposeCountRow) {
  into.purposes[row.purposeKey] ??= { granted: 0, denied: 0 };
  const p = into.purposes[row.purposeKey];
  p.granted += row.granted;
  p.denied += row.denied;
}

/**
 * A decision's outcome as the aggregates count it (analytics.sql.ts): accept_all when no optional
 * purpose is denied, reject_all when some are and none is granted, custom otherwise.
 */
export function decisionOutcome(
  purposes: ReadonlyArray<{ key: string; required: boolean }>,
  decisions: Record<string, string>,
): 'accept_all' | 'reject_all' | 'custom' {
  let granted = 0;
  let denied = 0;
  for (const p of purposes) {
    if (p.required) continue;
    if (decisions[p.key] === 'granted') granted++;
    else denied++;
  }
  return denied === 0 ? 'accept_all' : granted === 0 ? 'reject_all' : 'custom';
}

/** A UTC day `YYYY-MM-DD` that exists in the calendar (2026-02-30 does not), or undefined. */
function parseDay(value: string): Date | undefined {
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? undefined : date;
}

const dayString = (date: Date) => date.toISOString().slice(0, 10);

/** The first day of the period holding `day` (weeks start on Monday, ISO 8601). */
function periodStart(day: Date, interval: Interval): Date {
  if (interval === 'day') return day;
  if (interval === 'month') return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1));
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
}

/** Every period from the one holding `from` to the one holding `to`, oldest first. */
function periodsBetween(from: Date, to: Date, interval: Interval): string[] {
  const out: string[] = [];
  for (let p = periodStart(from, interval); p.getTime() <= to.getTime(); ) {
    out.push(dayString(p));
    p =
      interval === 'day'
        ? new Date(p.getTime() + DAY_MS)
        : interval === 'week'
          ? new Date(p.getTime() + 7 * DAY_MS)
          : new Date(Date.UTC(p.getUTCFullYear(), p.getUTCMonth() + 1, 1));
  }
  return out;
}

export interface AnalyticsQueryInput {
  channelId: string;
  from?: string;
  to?: string;
  interval?: Interval;
  groupBy?: GroupBy;
}

/** Consent analytics (contract §18): the aggregates kept as events are written, and impressions. */
export function createAnalyticsService(deps: {
  store: Store;
  clock: Clock;
  findChannel: ChannelsService['findChannel'];
}) {
  const { store, clock } = deps;
  const impressions = createImpressionCounter(store);

  return {
    /** Counts one banner impression (written within IMPRESSION_FLUSH_MS, with the others). */
    countImpression(key: Omit<ImpressionKey, 'day'>) {
      impressions.count({ ...key, day: dayString(clock.now()) });
    },
    /** Writes the impressions counted so far (the timer does it; tests and shutdown call it). */
    flushImpressions: () => impressions.flush(),

    /** `GET /v1/analytics/consent`: rows per period (and group), zeros where nothing happened. */
    async consent(scope: AnalyticsScope, input: AnalyticsQueryInput) {
      const interval = input.interval ?? 'day';
      const errors: Array<{ path: string; message: string }> = [];
      const today = new Date(`${dayString(clock.now())}T00:00:00Z`);
      const to = input.to === undefined ? today : parseDay(input.to);
      if (!to) errors.push({ path: 'query:/to', message: 'must be a calendar date, YYYY-MM-DD' });
      const from =
        input.from === undefined ? to && new Date(to.getTime() - 29 * DAY_MS) : parseDay(input.from);
      if (!from && input.from !== undefined)
        errors.push({ path: 'query:/from', message: 'must be a calendar date, YYYY-MM-DD' });
      if (from && to && from.getTime() > to.getTime()) {
        errors.push({ path: 'query:/from', message: 'must not be after `to`' });
      } else if (from && to && (to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS) {
        errors.push({ path: 'query:/from', message: `the range may cover at most ${MAX_RANGE_DAYS} days` });
      }
      if (errors.length || !from || !to) throw validationFailed(errors);
      if (!(await deps.findChannel(scope.organizationId, scope.environment, input.channelId)))
        throw notFound('channel');

      const { counts, purposes } = await analyticsRepo.counts(store.db, scope, {
        channelId: input.channelId,
        from: dayString(from),
        to: dayString(to),
        interval,
        groupBy: input.groupBy,
      });
      const totals = zero();
      const cells = new Map<string, Counts>();
      const cellOf = (period: string, group: unknown) => {
        const id = `${period}\u0000${String(group)}`;
        const cell = cells.get(id) ?? zero();
        cells.set(id, cell);
        return cell;
      };
      for (const row of counts) {
        addCounts(cellOf(row.period, row.group), row);
        addCounts(totals, row);
      }
      for (const row of purposes) {
        addPurpose(cellOf(row.period, row.group), row);
        addPurpose(totals, row);
      }
      // Every period; with groupBy, every group seen in the range in each (zeros where it was not),
      // and when the range saw none, the bare periods (so a quiet range still draws as zeros).
      const seen = input.groupBy
        ? [...new Set([...counts, ...purposes].map((r) => r.group))].sort((a, b) =>
            String(a ?? '').localeCompare(String(b ?? ''), 'en', { numeric: true }),
          )
        : [];
      const groups: Array<CountRow['group'] | undefined> = seen.length ? seen : [undefined];
      const data = periodsBetween(from, to, interval).flatMap((period) =>
        groups.map((group) => {
          const cell = cells.get(`${period}\u0000${String(group ?? null)}`) ?? zero();
          const key =
            input.groupBy && group !== undefined
              ? { [input.groupBy]: input.groupBy === 'configVersion' ? Number(group) : group }
              : {};
          return { period, ...key, ...cell };
        }),
      );
      return { data, meta: { totals }, error: null };
    },

    /** Test-environment aggregates go with test evidence, after a day (contract §18). */
    purgeTest: () => analyticsRepo.purgeTest(store.db, new Date(clock.now().getTime() - DAY_MS)),
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
