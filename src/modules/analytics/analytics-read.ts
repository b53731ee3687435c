import type { Store } from '../../platform/db/store.ts';
import {
  type AnalyticsScope,
  analyticsRepo,
  type CountRow,
  type GroupBy,
  type GroupSums,
  type Interval,
  MAX_GROUPS,
  type PurposeCountRow,
} from './analytics.repo.ts';

const DAY_MS = 86_400_000;
/**
 * The CPU time one slice of a long read should cost this process. A year of a channel seen from
 * many regions is seconds of work: in one statement it would hold the embedded store's one
 * connection (and its event loop, where PGlite runs) that long, and every other tenant's decisions
 * would wait for it. CPU time rather than elapsed time: on a busy machine a statement's elapsed time
 * grows with everything else running, which would shrink the slices to a day each for nothing. On
 * PostgreSQL the work is the server's, so slices grow to the whole range within a few statements.
 */
const SLICE_TARGET_MS = 25;
/** The first slice; each next one is sized from how long the last took (at most this many times longer). */
const FIRST_SLICE_DAYS = 7;
const MAX_GROWTH = 8;

const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Runs `read` over consecutive slices of the days from `from` to `to`, each slice one turn of the
 * organization's heavy reads (platform/db/heavy-reads.ts), sized so a turn takes about
 * SLICE_TARGET_MS: a small channel's year is two or three statements, a large one's many short ones.
 */
async function inSlices(
  store: Pick<Store, 'heavyReads'>,
  organizationId: string,
  range: { from: Date; to: Date },
  read: (from: string, to: string) => Promise<void>,
) {
  let days = FIRST_SLICE_DAYS;
  for (let start = range.from.getTime(); start <= range.to.getTime(); ) {
    const end = Math.min(range.to.getTime(), start + (days - 1) * DAY_MS);
    const elapsed = await store.heavyReads.turn(organizationId, async () => {
      const began = process.cpuUsage();
      await read(dayString(start), dayString(end));
      const used = process.cpuUsage(began);
      return (used.user + used.system) / 1000;
    });
    const covered = Math.round((end - start) / DAY_MS) + 1;
    days = Math.max(
      1,
      Math.min(covered * MAX_GROWTH, Math.round((covered * SLICE_TARGET_MS) / Math.max(elapsed, 1))),
    );
    start = end + DAY_MS;
  }
}

/**
 * The order groups are kept in: most decisions, then most impressions, then by key (config versions
 * by number, other keys by code point: ISO codes and regimes are ASCII, so bytewise as in SQL's "C").
 */
function rankOrder(groupBy: GroupBy) {
  return (a: GroupSums, b: GroupSums) =>
    b.decisions - a.decisions ||
    b.impressions - a.impressions ||
    (groupBy === 'configVersion'
      ? Number(a.key) - Number(b.key)
      : a.key < b.key
        ? -1
        : a.key > b.key
          ? 1
          : 0);
}

/**
 * The counts of a channel between two days, per period (and group), read in slices of days: with
 * `groupBy`, first every group's sums over the whole range (to keep the top MAX_GROUPS), then the
 * counts, every other group summed as "other" by the database. `groups` are the kept keys; `other`
 * whether any group was left out. Rows of one period may come from two slices: the caller adds them.
 */
export async function readAnalytics(
  store: Pick<Store, 'heavyReads' | 'replica'>,
  scope: AnalyticsScope,
  query: { channelId: string; from: Date; to: Date; interval: Interval; groupBy?: GroupBy },
): Promise<{ counts: CountRow[]; purposes: PurposeCountRow[]; groups: string[]; other: boolean }> {
  const { channelId, groupBy } = query;
  const db = store.replica;
  let kept: string[] = [];
  let other = false;
  if (groupBy) {
    const sums = new Map<string, GroupSums>();
    await inSlices(store, scope.organizationId, query, async (from, to) => {
      for (const row of await analyticsRepo.groupSums(db, scope, { channelId, from, to }, groupBy)) {
        const sum = sums.get(row.key);
        if (!sum) sums.set(row.key, row);
        else {
          sum.decisions += row.decisions;
          sum.impressions += row.impressions;
        }
      }
    });
    const ranked = [...sums.values()].sort(rankOrder(groupBy));
    kept = ranked.slice(0, MAX_GROUPS).map((group) => group.key);
    other = ranked.length > MAX_GROUPS;
  }
  const counts: CountRow[] = [];
  const purposes: PurposeCountRow[] = [];
  await inSlices(store, scope.organizationId, query, async (from, to) => {
    const slice = await analyticsRepo.counts(db, scope, { channelId, from, to }, { ...query, kept });
    for (const row of slice.counts) counts.push(row);
    for (const row of slice.purposes) purposes.push(row);
  });
  // A group first seen after the kept ones were chosen is "other" too.
  if (groupBy && !other)
    other = counts.some((r) => r.group === null) || purposes.some((r) => r.group === null);
  return { counts, purposes, groups: kept, other };
}
