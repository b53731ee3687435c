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
import { readAnalytics } from './analytics-read.ts';
import { createImpressionCounter, type ImpressionKey } from './impressions.ts';

export { ImpressionBody } from './analytics.schemas.ts';
export { analyticsCtes } from './analytics.sql.ts';

const DAY_MS = 86_400_000;
/** The longest range one query may cover: a year, leap day included. */
export const MAX_RANGE_DAYS = 366;
/** The days a query may name: both stores hold them, and every period of them (weeks, months). */
export const FIRST_DAY = '1970-01-01';
export const LAST_DAY = '9999-12-31';
/**
 * The group summing every group an answer leaves out (beyond MAX_GROUPS, analytics.repo.ts). No
 * real key can be "other": regions are upper-case ISO 3166 codes (or null, unknown), regimes are
 * `opt-in`, `opt-out` and `notice-only`, config versions are integers. Platforms have a real
 * "other" (an app that named none), but there are four of them, far below MAX_GROUPS: never summed.
 */
export const OTHER_GROUP = 'other';

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
  imports: 0,
  handoffs: 0,
  purposes: {},
});

function addCounts(into: Counts, row: Omit<CountRow, 'period' | 'group'>) {
  into.impressions += row.impressions;
  into.decisions += row.decisions;
  into.acceptAll += row.acceptAll;
  into.rejectAll += row.rejectAll;
  into.custom += row.custom;
  into.gpc += row.gpc;
  into.imports += row.imports;
  into.handoffs += row.handoffs;
}

function addPurpose(into: Counts, row: PurposeCountRow) {
  into.purposes[row.purposeKey] ??= { granted: 0, denied: 0 };
  const p = into.purposes[row.purposeKey];
  p.granted += row.granted;
  p.denied += row.denied;
}

/**
 * A UTC day `YYYY-MM-DD` that exists in the calendar (2026-02-30 does not) from FIRST_DAY to
 * LAST_DAY, or the message saying why not.
 */
function parseDay(value: string): Date | string {
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value)
    return 'must be a calendar date, YYYY-MM-DD';
  // Both strings are YYYY-MM-DD: their order is the days' order.
  if (value < FIRST_DAY || value > LAST_DAY) return `must be a day from ${FIRST_DAY} to ${LAST_DAY}`;
  return date;
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

/** Consent analytics: the aggregates kept as events are written, and impressions. */
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

    /**
     * `GET /v1/analytics/consent`: rows per period (and group), zeros where nothing happened. With
     * `groupBy`, at most MAX_GROUPS (50) groups (most decisions, then impressions, over the range)
     * and OTHER_GROUP summing the rest, so an answer has at most 366 × 51 rows however many groups
     * were seen; the totals are over every group.
     */
    async consent(scope: AnalyticsScope, input: AnalyticsQueryInput) {
      const interval = input.interval ?? 'day';
      const groupBy = input.groupBy;
      const errors: Array<{ path: string; message: string }> = [];
      const today = new Date(`${dayString(clock.now())}T00:00:00Z`);
      const toDay = input.to === undefined ? today : parseDay(input.to);
      if (typeof toDay === 'string') errors.push({ path: 'query:/to', message: toDay });
      const to = typeof toDay === 'string' ? undefined : toDay;
      const fromDay =
        input.from === undefined
          ? to && new Date(Math.max(to.getTime() - 29 * DAY_MS, Date.parse(`${FIRST_DAY}T00:00:00Z`)))
          : parseDay(input.from);
      if (typeof fromDay === 'string') errors.push({ path: 'query:/from', message: fromDay });
      const from = typeof fromDay === 'string' ? undefined : fromDay;
      if (from && to && from.getTime() > to.getTime()) {
        errors.push({ path: 'query:/from', message: 'must not be after `to`' });
      } else if (from && to && (to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS) {
        errors.push({ path: 'query:/from', message: `the range may cover at most ${MAX_RANGE_DAYS} days` });
      }
      if (errors.length || !from || !to) throw validationFailed(errors);
      if (!(await deps.findChannel(scope.organizationId, scope.environment, input.channelId)))
        throw notFound('channel');

      // In slices of days, each a turn of the organization's heavy reads (analytics-read.ts).
      const { counts, purposes, groups, other } = await readAnalytics(store, scope, {
        channelId: input.channelId,
        from,
        to,
        interval,
        groupBy,
      });
      // One cell per period and group (null: "other", or everything without groupBy).
      const idOf = (period: string, group: string | null) =>
        group === null ? period : `${period}\u0000${group}`;
      const totals = zero();
      const cells = new Map<string, Counts>();
      const cellOf = (period: string, group: string | null) => {
        const id = idOf(period, group);
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
      // Every period; with groupBy, each kept group in each (zeros where it had nothing), in key
      // order, then "other" when a group was left out; when the range saw no group, the bare
      // periods (so a quiet range still draws as zeros).
      const keys: Array<string | null> = groupBy
        ? [...groups].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        : [];
      if (groupBy && other) keys.push(null);
      const shown = (key: string | null) =>
        key === null ? OTHER_GROUP : groupBy === 'configVersion' ? Number(key) : key === '' ? null : key;
      const columns = keys.map((key) => ({ key, field: groupBy ? { [groupBy]: shown(key) } : {} }));
      const data = periodsBetween(from, to, interval).flatMap((period) =>
        columns.length
          ? columns.map(({ key, field }) => ({
              period,
              ...field,
              ...(cells.get(idOf(period, key)) ?? zero()),
            }))
          : [{ period, ...(cells.get(idOf(period, null)) ?? zero()) }],
      );
      return { data, meta: { totals }, error: null };
    },

    /** Test-environment aggregates go with test evidence, after a day. */
    purgeTest: () => store.tx((tx) => analyticsRepo.purgeTest(tx, new Date(clock.now().getTime() - DAY_MS))),
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
