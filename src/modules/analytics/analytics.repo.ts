import { sql } from 'drizzle-orm';
import type { Environment } from '../../platform/auth/scopes.ts';
import { rowsOf } from '../../platform/db/rows.ts';
import type { Db } from '../../platform/db/store.ts';

export type Interval = 'day' | 'week' | 'month';
export type GroupBy = 'region' | 'regime' | 'configVersion';

export interface AnalyticsScope {
  organizationId: string;
  environment: Environment;
}

export interface CountRow {
  period: string;
  group: string | number | null;
  impressions: number;
  decisions: number;
  acceptAll: number;
  rejectAll: number;
  custom: number;
  gpc: number;
}

export interface PurposeCountRow {
  period: string;
  group: string | number | null;
  purposeKey: string;
  granted: number;
  denied: number;
}

/** The SQL of a group's key: region and regime are stored as '' when unknown and shown as null. */
function groupExpression(groupBy: GroupBy | undefined) {
  if (groupBy === 'region') return sql.raw(`nullif(region, '')`);
  if (groupBy === 'regime') return sql.raw(`nullif(regime, '')`);
  if (groupBy === 'configVersion') return sql.raw('config_version');
  return sql.raw('null::text');
}

/** A period's first day: `date_trunc` on a date (weeks start on Monday, ISO 8601). */
const periodOf = (interval: Interval) => sql.raw(`to_char(date_trunc('${interval}', day), 'YYYY-MM-DD')`);

export const analyticsRepo = {
  /** The day rows of a channel between two days (inclusive), summed per period and group. */
  async counts(
    db: Db,
    scope: AnalyticsScope,
    query: { channelId: string; from: string; to: string; interval: Interval; groupBy?: GroupBy },
  ): Promise<{ counts: CountRow[]; purposes: PurposeCountRow[] }> {
    const where = sql`organization_id = ${scope.organizationId} and environment = ${scope.environment}
      and channel_id = ${query.channelId} and day between ${query.from}::date and ${query.to}::date`;
    const period = periodOf(query.interval);
    const group = groupExpression(query.groupBy);
    const counts = rowsOf(
      await db.execute(sql`select ${period} as period, ${group} as grp,
          sum(impressions)::float8 as impressions, sum(decisions)::float8 as decisions,
          sum(accept_all)::float8 as accept_all, sum(reject_all)::float8 as reject_all,
          sum(custom)::float8 as custom, sum(gpc)::float8 as gpc
        from consent_analytics_daily where ${where} group by 1, 2`),
    ).map((r) => ({
      period: r.period as string,
      group: r.grp as CountRow['group'],
      impressions: Number(r.impressions),
      decisions: Number(r.decisions),
      acceptAll: Number(r.accept_all),
      rejectAll: Number(r.reject_all),
      custom: Number(r.custom),
      gpc: Number(r.gpc),
    }));
    const purposes = rowsOf(
      await db.execute(sql`select ${period} as period, ${group} as grp, purpose_key,
          sum(granted)::float8 as granted, sum(denied)::float8 as denied
        from consent_analytics_purposes where ${where} group by 1, 2, 3`),
    ).map((r) => ({
      period: r.period as string,
      group: r.grp as PurposeCountRow['group'],
      purposeKey: r.purpose_key as string,
      granted: Number(r.granted),
      denied: Number(r.denied),
    }));
    return { counts, purposes };
  },

  /** Test-environment aggregates of days wholly before `cutoff`: purged with test evidence (one day). */
  async purgeTest(db: Db, cutoff: Date): Promise<void> {
    const day = cutoff.toISOString().slice(0, 10);
    await db.execute(
      sql`delete from consent_analytics_daily where environment = 'test' and day < ${day}::date`,
    );
    await db.execute(
      sql`delete from consent_analytics_purposes where environment = 'test' and day < ${day}::date`,
    );
  },
};
