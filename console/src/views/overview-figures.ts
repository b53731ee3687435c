import { type ChartMarker, chartCard, type NumbersTable, type Series } from '../charts.ts';
import { h } from '../dom.ts';
import { section } from '../ui.ts';
import type { Counts, Purpose, Row } from './overview.ts';
import { count, percent } from './overview-glance.ts';

/**
 * Decisions per impression, where it means something: decisions sent through the API or from the
 * preferences link have no impression, so more decisions than impressions is not a rate over 100%.
 */
const answerRate = (decisions: number, impressions: number) =>
  decisions > impressions ? '—' : percent(decisions, impressions);
const periodLabel = (period: string, interval: string) =>
  interval === 'month' ? period.slice(0, 7) : interval === 'week' ? `Week of ${period}` : period;
/** The tables list the newest period first (today's row without scrolling); the charts run left to right. */
const newestFirst = <T>(items: T[]) => [...items].reverse();

/** What every time chart of one drawing shares: its periods, their labels, the range, the markers. */
interface Periods {
  rows: Row[];
  totals: Counts;
  interval: string;
  /** "per day", "per week"… */
  per: string;
  x: string[];
  heads: string[];
  range: string;
  markers: ChartMarker[];
}

const column = (p: Periods, pick: (r: Counts) => number): (number | null)[] => p.rows.map(pick);

/** The chart's name says where its dashed lines are, for a reader who cannot see them. */
const markersSaid = (p: Periods) =>
  p.markers.length
    ? ` Dashed lines mark the config versions published: ${p.markers.map((m) => m.label).join('; ')}.`
    : '';

function activityCard(p: Periods): HTMLElement {
  const { rows, totals, per } = p;
  const table: NumbersTable = {
    caption: `Impressions and decisions ${per}`,
    headers: ['Period', 'Impressions', 'Decisions', 'Decisions per impression'],
    rows: newestFirst(
      rows.map((r, i) => ({
        head: p.heads[i],
        cells: [count(r.impressions), count(r.decisions), answerRate(r.decisions, r.impressions)],
      })),
    ),
    total: [
      count(totals.impressions),
      count(totals.decisions),
      answerRate(totals.decisions, totals.impressions),
    ],
  };
  return chartCard(
    'Impressions and decisions',
    `How often the banner was shown, and how often a visitor chose, ${per}. Decisions per impression is left out (—) where decisions outnumber impressions: a decision sent through the API or from the preferences link has no impression.`,
    {
      kind: 'lines',
      x: p.x,
      interval: p.interval,
      markers: p.markers,
      series: [
        { label: 'Impressions', values: column(p, (r) => r.impressions) },
        { label: 'Decisions', values: column(p, (r) => r.decisions) },
      ],
    },
    `Line chart of impressions and decisions ${per}, ${p.range}: ${count(totals.impressions)} impressions, ${count(totals.decisions)} decisions in all.${markersSaid(p)}`,
    table,
    `total: ${count(totals.impressions)} impressions, ${count(totals.decisions)} decisions`,
  );
}

function outcomesCard(p: Periods): HTMLElement {
  const { rows, totals, per } = p;
  const series: Series[] = [
    { label: 'Accept all', values: column(p, (r) => r.acceptAll) },
    { label: 'Reject all', values: column(p, (r) => r.rejectAll) },
    { label: 'Custom', values: column(p, (r) => r.custom) },
  ];
  const table: NumbersTable = {
    caption: `Accept all, reject all and custom ${per}`,
    headers: ['Period', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
    rows: newestFirst(
      rows.map((r, i) => ({
        head: p.heads[i],
        cells: [count(r.acceptAll), count(r.rejectAll), count(r.custom), count(r.gpc)],
      })),
    ),
    total: [count(totals.acceptAll), count(totals.rejectAll), count(totals.custom), count(totals.gpc)],
  };
  return chartCard(
    'Accept all, reject all, custom',
    `Each decision ${per}, stacked by its outcome. GPC decisions count in these too.`,
    { kind: 'stacked', x: p.x, interval: p.interval, series, markers: p.markers },
    `Stacked bar chart of decisions ${per} by outcome, ${p.range}: ${count(totals.acceptAll)} accept all, ${count(totals.rejectAll)} reject all, ${count(totals.custom)} custom.${markersSaid(p)}`,
    table,
    `total: ${count(totals.acceptAll)} accept all, ${count(totals.rejectAll)} reject all, ${count(totals.custom)} custom`,
  );
}

function purposesCard(p: Periods, purposes: Purpose[]): HTMLElement {
  const { rows, totals, per } = p;
  // Required purposes are always granted: their 100% says nothing, so only the optional ones.
  const required = new Set(purposes.filter((x) => x.required).map((x) => x.key));
  const names = new Map(purposes.map((x) => [x.key, x.name]));
  const keys = Object.keys(totals.purposes)
    .filter((k) => !required.has(k))
    .sort();
  if (keys.length === 0) {
    return section(
      'Opt-in rate per purpose',
      h('p', {}, 'No decision about an optional purpose in this range.'),
    );
  }
  const rate = (c: { granted: number; denied: number } | undefined) =>
    c && c.granted + c.denied ? (100 * c.granted) / (c.granted + c.denied) : null;
  const optIn = (c: { granted: number; denied: number } | undefined) =>
    c && c.granted + c.denied
      ? `${percent(c.granted, c.granted + c.denied)} (${count(c.granted)} of ${count(c.granted + c.denied)})`
      : '—';
  const series: Series[] = keys.map((k) => ({
    label: names.get(k) ?? k,
    values: rows.map((r) => rate(r.purposes[k])),
  }));
  const table: NumbersTable = {
    caption: `Opt-in rate per purpose ${per}`,
    headers: ['Period', ...series.map((s) => s.label)],
    rows: newestFirst(
      rows.map((r, i) => ({ head: p.heads[i], cells: keys.map((k) => optIn(r.purposes[k])) })),
    ),
    total: keys.map((k) => optIn(totals.purposes[k])),
  };
  const overRange = keys
    .map((k) => {
      const c = totals.purposes[k];
      return `${names.get(k) ?? k} ${percent(c.granted, c.granted + c.denied)}`;
    })
    .join(', ');
  return chartCard(
    'Opt-in rate per purpose',
    `The share of decisions that granted each optional purpose, ${per}. Gaps are periods without decisions.`,
    {
      kind: 'lines',
      x: p.x,
      interval: p.interval,
      series,
      yMax: 100,
      yValue: (v) => `${v}%`,
      markers: p.markers,
    },
    `Line chart of the opt-in rate per purpose ${per}, ${p.range}: ${overRange} over the range.${markersSaid(p)}`,
    table,
  );
}

const COUNTED = [
  'impressions',
  'decisions',
  'acceptAll',
  'rejectAll',
  'custom',
  'gpc',
  'imports',
  'handoffs',
] as const;

/**
 * Regions over the whole range, most decisions first; "Unknown" when no region was resolved, and
 * "Other regions" for the API's "other" group (the regions past the 50 with the most decisions).
 */
function regionsCard(regionRows: Row[], range: string): HTMLElement {
  const byRegion = new Map<string, Counts>();
  for (const r of regionRows) {
    const key = r.region === 'other' ? 'Other regions' : (r.region ?? 'Unknown');
    const into =
      byRegion.get(key) ??
      ({ ...Object.fromEntries(COUNTED.map((k) => [k, 0])), purposes: {} } as unknown as Counts);
    for (const k of COUNTED) into[k] += r[k];
    byRegion.set(key, into);
  }
  const regions = [...byRegion.entries()].sort(
    (a, b) => b[1].decisions - a[1].decisions || a[0].localeCompare(b[0]),
  );
  const table: NumbersTable = {
    caption: 'Decisions by region',
    headers: ['Region', 'Impressions', 'Decisions', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
    rows: regions.map(([region, c]) => ({
      head: region,
      cells: [c.impressions, c.decisions, c.acceptAll, c.rejectAll, c.custom, c.gpc].map(count),
    })),
  };
  const shown = regions.slice(0, 12);
  return chartCard(
    'Decisions by region',
    regions.length > shown.length
      ? `Decisions over the whole range, by the visitor’s region; the chart shows the ${shown.length} with the most, the table all ${regions.length}.`
      : 'Decisions over the whole range, by the visitor’s region.',
    {
      kind: 'categories',
      x: shown.map(([r]) => r),
      series: [{ label: 'Decisions', values: shown.map(([, c]) => c.decisions) }],
    },
    `Bar chart of decisions by region, ${range}: ${shown.map(([r, c]) => `${r} ${count(c.decisions)}`).join(', ')}.`,
    table,
  );
}

/** What the Overview draws for one channel and range. */
export interface FiguresInput {
  channelName: string;
  rows: Row[];
  totals: Counts;
  regionRows: Row[];
  purposes: Purpose[];
  interval: string;
  /** The config versions published in the range, one dashed line each on the time charts. */
  markers: ChartMarker[];
}

/** The Overview's cards: activity, outcomes, opt-in per purpose (time charts), then regions. */
export function figures(input: FiguresInput): HTMLElement[] {
  const { rows, totals, interval } = input;
  const range = rows.length ? `${rows[0].period} to ${rows[rows.length - 1].period}` : 'the range';
  if (totals.impressions === 0 && totals.decisions === 0) {
    return [
      section(
        'No activity',
        h(
          'p',
          {},
          `${input.channelName} showed no banner and recorded no decision in this range. Pick other dates, or check that its snippet is on your site.`,
        ),
      ),
    ];
  }
  const periods: Periods = {
    rows,
    totals,
    interval,
    per: interval === 'day' ? 'per day' : `per ${interval}`,
    x: rows.map((r) => r.period),
    heads: rows.map((r) => periodLabel(r.period, interval)),
    range,
    markers: input.markers,
  };
  return [
    activityCard(periods),
    outcomesCard(periods),
    purposesCard(periods, input.purposes),
    regionsCard(input.regionRows, range),
  ];
}
