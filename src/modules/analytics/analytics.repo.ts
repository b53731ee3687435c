import { sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { readQuery, rowsOf } from '../../platform/db/rows.ts';
import type { Db, Tx } from '../../platform/db/store.ts';

export type Interval = 'day' | 'week' | 'month';
export type GroupBy = 'region' | 'regime' | 'configVersion' | 'platform';

export interface AnalyticsScope {
  organizationId: string;
  environment: Environment;
}

/**
 * With `groupBy`, an answer holds at most this many groups: those with the most decisions in the
 * range, then the most impressions, then by key. The rest are summed into one group, "other".
 */
export const MAX_GROUPS = 50;

export interface CountRow {
  period: string;
  /** The group's key as stored (text; '' for an unknown region or regime); null: "other". */
  group: string | null;
  impressions: number;
  decisions: number;
  acceptAll: number;
  rejectAll: number;
  custom: number;
  gpc: number;
  /** Decisions imported from the previous CMP (source import). */
  imports: number;
  /** Decisions handed over from a sibling domain (source handoff). */
  handoffs: number;
}

export interface PurposeCountRow {
  period: string;
  group: string | null;
  purposeKey: string;
  granted: number;
  denied: number;
}

/** A group's key as stored, as text: region and regime are '' when unknown; the config version. */
const keyOf = (groupBy: GroupBy) => sql.raw(groupBy === 'configVersion' ? 'config_version::text' : groupBy);
const columnOf = (groupBy: GroupBy) => sql.raw(groupBy === 'configVersion' ? 'config_version' : groupBy);

/** A period's first day: `date_trunc` on a date (weeks start on Monday, ISO 8601). */
const periodOf = (interval: Interval) => sql.raw(`to_char(date_trunc('${interval}', day), 'YYYY-MM-DD')`);

/** One range of days of a channel (inclusive): what each statement of a read covers. */
export interface DaySlice {
  channelId: string;
  from: string;
  to: string;
}

/** A group's sums over a slice of days, for choosing the groups an answer keeps. */
export interface GroupSums {
  key: string;
  decisions: number;
  impressions: number;
}

const whereOf = (scope: AnalyticsScope, slice: DaySlice) =>
  sql`organization_id = ${scope.organizationId} and environment = ${scope.environment}
      and channel_id = ${slice.channelId} and day between ${slice.from}::date and ${slice.to}::date`;

export const analyticsRepo = {
  /**
   * Every group's decisions and impressions over a slice of days (its key as stored, as text). The
   * service sums the slices and keeps the top MAX_GROUPS (analytics-read.ts): one statement over a
   * year of many regions would hold the embedded store's one connection for seconds.
   */
  async groupSums(db: Db, scope: AnalyticsScope, slice: DaySlice, groupBy: GroupBy): Promise<GroupSums[]> {
    return rowsOf<{ grp: string; decisions: number; impressions: number }>(
      await readQuery(
        db,
        sql`select ${keyOf(groupBy)} as grp, sum(decisions)::float8 as decisions,
          sum(impressions)::float8 as impressions
        from consent_analytics_daily where ${whereOf(scope, slice)} group by ${columnOf(groupBy)}`,
      ),
    ).map((r) => ({ key: r.grp, decisions: Number(r.decisions), impressions: Number(r.impressions) }));
  },

  /**
   * The day rows of a slice of days, summed per period and group. With `groupBy`, the keys of
   * `kept` as they are and every other group's rows summed into group null ("other") by the
   * database: what is read back is bounded by the periods times MAX_GROUPS + 1, not by how many
   * groups were seen. Periods that straddle two slices come back from each: the caller adds them.
   */
  async counts(
    db: Db,
    scope: AnalyticsScope,
    slice: DaySlice,
    query: { interval: Interval; groupBy?: GroupBy; kept: string[] },
  ): Promise<{ counts: CountRow[]; purposes: PurposeCountRow[] }> {
    const where = whereOf(scope, slice);
    const period = periodOf(query.interval);
    let group = sql.raw('null::text');
    if (query.groupBy) {
      // Kept keys as they are; any other (also one first seen after they were chosen) as null.
      const key = keyOf(query.groupBy);
      group = sql`case when ${key} = any(${sql.param(query.kept)}::text[]) then ${key} end`;
    }
    const counts = rowsOf(
      await readQuery(
        db,
        sql`select ${period} as period, ${group} as grp,
          sum(impressions)::float8 as impressions, sum(decisions)::float8 as decisions,
          sum(accept_all)::float8 as accept_all, sum(reject_all)::float8 as reject_all,
          sum(custom)::float8 as custom, sum(gpc)::float8 as gpc,
          sum(imports)::float8 as imports, sum(handoffs)::float8 as handoffs
        from consent_analytics_daily where ${where} group by 1, 2`,
      ),
    ).map((r) => ({
      period: r.period as string,
      group: r.grp as string | null,
      impressions: Number(r.impressions),
      decisions: Number(r.decisions),
      acceptAll: Number(r.accept_all),
      rejectAll: Number(r.reject_all),
      custom: Number(r.custom),
      gpc: Number(r.gpc),
      imports: Number(r.imports),
      handoffs: Number(r.handoffs),
    }));
    const purposes = rowsOf(
      await readQuery(
        db,
        sql`select ${period} as period, ${group} as grp, purpose_key,
          sum(granted)::float8 as granted, sum(denied)::float8 as denied
        from consent_analytics_purposes where ${where} group by 1, 2, 3`,
      ),
    ).map((r) => ({
      period: r.period as string,
      group: r.grp as string | null,
      purposeKey: r.purpose_key as string,
      granted: Number(r.granted),
      denied: Number(r.denied),
    }));
    return { counts, purposes };
  },

  /** Test-environment aggregates of days wholly before `cutoff`: purged with test evidence (one day). */
  async purgeTest(tx: Tx, cutoff: Date): Promise<void> {
    const day = cutoff.toISOString().slice(0, 10);
    await tx.execute(
      sql`delete from consent_analytics_daily where environment = 'test' and day < ${day}::date`,
    );
    await tx.execute(
      sql`delete from consent_analytics_purposes where environment = 'test' and day < ${day}::date`,
    );
  },
};
