import uPlot from 'uplot';
import { type Child, h } from './dom.ts';

/**
 * Charts of the Overview view, drawn by uPlot on a canvas. uPlot styles its own elements through the
 * CSSOM (`el.style.x = …`), which the console's CSP (`style-src 'self'`) allows; its stylesheet is
 * vendored in styles.css. A chart is a picture with a name (role="img" and an aria-label that says
 * what it shows and its totals); the same numbers are in a table under it.
 */

/** Series colours: each at least 4.5:1 against white, and told apart by the legend's order too. */
export const PALETTE = [
  '#0b5cad',
  '#b42318',
  '#6f42c1',
  '#1a7f37',
  '#9a6700',
  '#0e7490',
  '#be185d',
  '#57606a',
];
const INK = '#57606a';
const GRID = '#e4e8ec';
/** Config-change markers: dashed, in the ink colour, so they read as notes, not as a series. */
const MARKER = '#24292f';

/** A moment marked on a time chart (a config version published), labelled at the top. */
export interface ChartMarker {
  /** Seconds since the epoch. */
  at: number;
  label: string;
}

export interface Series {
  label: string;
  values: (number | null)[];
}

interface ChartSpec {
  kind: 'lines' | 'bars' | 'stacked' | 'categories';
  /** UTC days of the periods (YYYY-MM-DD), or the category names for 'categories'. */
  x: string[];
  /** The periods' length: week and month ticks sit on the periods' first days, not uPlot's own steps. */
  interval?: string;
  series: Series[];
  /** Formats a y value on its axis (e.g. a percentage). */
  yValue?: (value: number) => string;
  yMax?: number;
  /** Time charts only: a dashed line per marker, labelled (the config versions of the range). */
  markers?: ChartMarker[];
}

/** Whole-number ticks: counts and percentages have no 0.2 of a decision. */
const COUNT_STEPS = [1, 2, 5]
  .flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((p) => m * p))
  .sort((a, b) => a - b);

const secondsOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/**
 * `onTicks` hears the time axis' labels as drawn: the chart's box keeps them in `data-x-ticks`, the
 * one place a test (or a curious reader of the page) can see what the canvas printed.
 */
function axes(spec: ChartSpec, onTicks: (labels: string[]) => void): uPlot.Axis[] {
  const font = '12px system-ui, sans-serif';
  const base = { stroke: INK, font, grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID, width: 1 } };
  const y: uPlot.Axis = {
    ...base,
    size: 48,
    incrs: COUNT_STEPS,
    values: (_u, splits) => splits.map((v) => (spec.yValue ? spec.yValue(v) : String(v))),
  };
  if (spec.kind !== 'categories') {
    // One tick per period (a day, a Monday, a month's first day), every n-th when they would crowd,
    // in ISO dates like the tables and the date fields: uPlot's own time steps put several ticks in
    // one day (hours), each labelled with the same date. A month reads as 2026-03, its row's label.
    const starts = spec.x.map(secondsOf);
    const monthly = spec.interval === 'month';
    const space = monthly ? 70 : 90;
    return [
      {
        ...base,
        space,
        splits: (u) => {
          const fit = Math.max(1, Math.floor(u.bbox.width / devicePixelRatio / space));
          const every = Math.ceil(starts.length / fit);
          return starts.filter((_, i) => i % every === 0);
        },
        values: (_u, splits) => {
          const labels = splits.map((s) => new Date(s * 1000).toISOString().slice(0, monthly ? 7 : 10));
          onTicks(labels);
          return labels;
        },
      },
      y,
    ];
  }
  // Horizontal bars: categories down the left side, counts along the bottom.
  return [
    {
      ...base,
      side: 3,
      size: 80,
      grid: { show: false },
      splits: () => spec.x.map((_, i) => i),
      values: (_u, splits) => splits.map((i) => spec.x[i] ?? ''),
    },
    { ...y, side: 2, size: 32, space: 50 },
  ];
}

function options(
  spec: ChartSpec,
  width: number,
  height: number,
  onTicks: (labels: string[]) => void,
): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.7, 48] });
  const series: uPlot.Series[] = [
    {},
    ...spec.series.map(
      (s, i): uPlot.Series => ({
        label: s.label,
        stroke: PALETTE[i % PALETTE.length],
        width: 2,
        ...(spec.kind === 'lines'
          ? { points: { show: true, size: 6 }, spanGaps: false }
          : // No outline: a zero would still draw one along the axis.
            { paths: bars, fill: PALETTE[i % PALETTE.length], width: 0, points: { show: false } }),
      }),
    ),
  ];
  const yMax = spec.yMax;
  return {
    width,
    height,
    legend: { show: false },
    // Room on the right for the last date label, which uPlot centres on the axis' end.
    ...(spec.kind === 'categories' ? {} : { padding: [null, 36, null, null] as uPlot.Padding }),
    cursor: { drag: { x: false, y: false } },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales:
      spec.kind === 'categories'
        ? {
            x: { time: false, ori: 1, dir: -1, range: [-0.5, spec.x.length - 0.5] },
            y: { ori: 0, range: (_u, _min, max) => [0, Math.max(1, max)] },
          }
        : {
            x: spec.x.length === 1 ? { time: true, range: (_u, min) => [min - 86_400, min + 86_400] } : {},
            y: { range: (_u, _min, max) => [0, yMax ?? Math.max(1, max)] },
          },
    axes: axes(spec, onTicks),
    series,
    hooks: spec.markers?.length ? { draw: [(u) => drawMarkers(u, spec.markers ?? [])] } : {},
  };
}

/** Each marker in the plot's range as a dashed vertical line, its label beside its top. */
function drawMarkers(u: uPlot, markers: ChartMarker[]) {
  const { ctx, bbox } = u;
  const dpr = devicePixelRatio;
  ctx.save();
  ctx.strokeStyle = MARKER;
  ctx.fillStyle = MARKER;
  ctx.lineWidth = dpr;
  ctx.setLineDash([4 * dpr, 3 * dpr]);
  ctx.font = `${11 * dpr}px system-ui, sans-serif`;
  for (const [i, marker] of markers.entries()) {
    const x = Math.round(u.valToPos(marker.at, 'x', true));
    if (x < bbox.left - 1 || x > bbox.left + bbox.width + 1) continue;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    // The label beside its line, on the left near the right edge (it would be cut off), and
    // stepping down for markers close together, so labels do not print over each other.
    const width = ctx.measureText(marker.label).width;
    const left = x + 3 * dpr + width > bbox.left + bbox.width ? x - 3 * dpr - width : x + 3 * dpr;
    ctx.fillText(marker.label, left, bbox.top + (11 + 12 * (i % 3)) * dpr);
  }
  ctx.restore();
}

/** The data uPlot draws: stacked bars are cumulative sums, drawn tallest first so each shows its band. */
function plotData(spec: ChartSpec): uPlot.AlignedData {
  const x = spec.kind === 'categories' ? spec.x.map((_, i) => i) : spec.x.map(secondsOf);
  if (spec.kind !== 'stacked') return [x, ...spec.series.map((s) => s.values)];
  const sums = spec.series.map((_, i) =>
    x.map((_x, j) => spec.series.slice(i).reduce((sum, s) => sum + (s.values[j] ?? 0), 0)),
  );
  return [x, ...sums];
}

/** Plots still on screen; the view destroys them before drawing new ones (uPlot listens on window). */
const live = new Set<uPlot>();
export function destroyCharts() {
  for (const plot of live) plot.destroy();
  live.clear();
}

/**
 * A chart that draws itself once it has a width, and redraws at the width of its box when that
 * changes (a phone turned, a window resized), so it never widens the page.
 */
function canvasOf(spec: ChartSpec, label: string): HTMLElement {
  const box = h('div', { class: `chart chart-${spec.kind}`, role: 'img', 'aria-label': label });
  const height = spec.kind === 'categories' ? 40 + 30 * Math.max(1, spec.x.length) : 220;
  let plot: uPlot | null = null;
  const observer = new ResizeObserver(() => {
    if (!box.isConnected) {
      observer.disconnect();
      if (plot) {
        live.delete(plot);
        plot.destroy();
      }
      return;
    }
    const width = Math.floor(box.clientWidth);
    if (width <= 0) return;
    if (!plot) {
      const onTicks = (labels: string[]) => box.setAttribute('data-x-ticks', labels.join(' '));
      plot = new uPlot(options(spec, width, height, onTicks), plotData(spec), box);
      live.add(plot);
    } else if (plot.width !== width) plot.setSize({ width, height });
  });
  observer.observe(box);
  return box;
}

function legend(series: Series[], markers: ChartMarker[] = []): HTMLElement {
  return h(
    'ul',
    { class: 'chart-legend' },
    ...series.map((s, i) => {
      const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.background = PALETTE[i % PALETTE.length];
      return h('li', {}, swatch, s.label);
    }),
    markers.length
      ? h(
          'li',
          {},
          h('span', { class: 'swatch swatch-marker', 'aria-hidden': 'true' }),
          `Config version published (${markers.map((m) => m.label).join(', ')})`,
        )
      : null,
  );
}

export interface NumbersTable {
  caption: string;
  headers: string[];
  rows: { head: string; cells: Child[] }[];
  total?: Child[];
}

/**
 * The chart's numbers: the first column heads each row; numbers align right. The total comes first,
 * under the headings, so it shows without scrolling however many periods follow.
 */
export function numbersTable(t: NumbersTable): HTMLElement {
  const numeric = (c: Child) => h('td', { class: 'num' }, c);
  return h(
    'div',
    { class: 'table-wrap numbers', tabindex: 0, role: 'region', 'aria-label': t.caption },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, t.caption),
      h(
        'thead',
        {},
        h('tr', {}, ...t.headers.map((text, i) => h('th', { scope: 'col', class: i ? 'num' : null }, text))),
      ),
      h(
        'tbody',
        {},
        t.total
          ? h('tr', { class: 'total' }, h('th', { scope: 'row' }, 'Total'), ...t.total.map(numeric))
          : null,
        ...t.rows.map((r) => h('tr', {}, h('th', { scope: 'row' }, r.head), ...r.cells.map(numeric))),
      ),
    ),
  );
}

/**
 * One chart card: a heading, the chart (an image named `label`, whose name carries the totals), its
 * legend, and the table of the same numbers in a closed disclosure: the chart reads at a glance,
 * the table is one click (or Enter) away, and `summary` (the totals) shows on the closed one.
 */
export function chartCard(
  title: string,
  description: string,
  spec: ChartSpec,
  label: string,
  table: NumbersTable,
  summary?: string,
): HTMLElement {
  return h(
    'section',
    { class: 'card chart-card' },
    h('h2', {}, title),
    h('p', { class: 'lead' }, description),
    h('figure', {}, canvasOf(spec, label), h('figcaption', {}, legend(spec.series, spec.markers))),
    h(
      'details',
      {},
      h('summary', {}, `Numbers: ${title.toLowerCase()}${summary ? ` (${summary})` : ''}`),
      numbersTable(table),
    ),
  );
}
