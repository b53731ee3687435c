import { answer, api, type Schemas } from '../api.ts';
import type { ChartMarker } from '../charts.ts';
import { configChanges } from '../config-changes.ts';
import { date, h } from '../dom.ts';
import { section } from '../ui.ts';

/** A config version published within the Overview's range, and what it changed, in words. */
export interface RangeVersion {
  version: number;
  publishedAt: string;
  changes: string[];
  reconsent: boolean;
}

const DAY_SECONDS = 86_400;
const PERIOD_DAYS: Record<string, number> = { day: 1, week: 7 };
const seconds = (iso: string) => Date.parse(iso) / 1000;

type Listed = Schemas['ConfigVersion'];

/** A channel's config versions, newest first; none when they cannot be read (nothing is marked). */
export const configVersionsOf = (channelId: string): Promise<Listed[]> =>
  answer(
    api.GET('/v1/channels/{id}/config-versions', {
      params: { path: { id: channelId }, query: { limit: 100 } },
    }),
  ).then(
    (r) => r.data,
    () => [],
  );

/**
 * The versions published between the first period's start and the last one's end, newest first,
 * each with what it changed: a change of the banner explains a change of the figures, so the
 * charts mark each one.
 */
export function versionsInRange(listed: Listed[], periods: string[], interval: string): RangeVersion[] {
  if (periods.length === 0) return [];
  const start = seconds(`${periods[0]}T00:00:00Z`);
  const last = new Date(`${periods[periods.length - 1]}T00:00:00Z`);
  const end =
    interval === 'month'
      ? Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1) / 1000
      : last.getTime() / 1000 + (PERIOD_DAYS[interval] ?? 1) * DAY_SECONDS;
  return listed.flatMap((v, i) => {
    const at = seconds(v.createdAt);
    if (at < start || at >= end) return [];
    const before = listed[i + 1];
    const changes =
      before || v.version === 1
        ? configChanges(before?.config, v.config)
        : ['The version before it is not listed'];
    return [{ version: v.version, publishedAt: v.createdAt, changes, reconsent: v.reconsent }];
  });
}

/**
 * The versions as chart markers, one per period that has any: a version is drawn on the period it
 * was published in (the point or bar its figures start to count in; the last period's point is its
 * first instant, so a version of today would otherwise fall past the chart's end), and versions of
 * one period share a label ("v5, v6"; "v1–v6" for more than three).
 */
export function chartMarkers(versions: RangeVersion[], periods: string[]): ChartMarker[] {
  const starts = periods.map((p) => seconds(`${p}T00:00:00Z`));
  const byPeriod = new Map<number, number[]>();
  for (const v of [...versions].reverse()) {
    const at = seconds(v.publishedAt);
    const start = starts.filter((s) => s <= at).at(-1);
    if (start === undefined) continue;
    byPeriod.set(start, [...(byPeriod.get(start) ?? []), v.version]);
  }
  return [...byPeriod].map(([at, numbers]) => ({
    at,
    label:
      numbers.length > 3
        ? `v${numbers[0]}–v${numbers[numbers.length - 1]}`
        : numbers.map((n) => `v${n}`).join(', '),
  }));
}

/**
 * The same versions in words under the charts (what a marker says to someone who cannot see the
 * canvas, and the detail a label has no room for), each linking to the channel's config versions.
 */
export function configChangesSection(channelId: string, versions: RangeVersion[]): HTMLElement | null {
  if (versions.length === 0) return null;
  const href = `#/channels/${encodeURIComponent(channelId)}/config-versions`;
  return section(
    'Config changes in this range',
    h(
      'p',
      { class: 'lead' },
      'Each is a dashed line on the charts above, labelled with its version: a change of the banner explains a change of its figures. ',
      h('a', { href }, 'All config versions'),
      '.',
    ),
    h(
      'ul',
      { class: 'config-changes' },
      ...versions.map((v) =>
        h(
          'li',
          {},
          h('strong', {}, `v${v.version}`),
          ` published ${date(v.publishedAt)}${v.reconsent ? ' (asks visitors again)' : ''}: `,
          v.changes.join('; '),
        ),
      ),
    ),
  );
}
