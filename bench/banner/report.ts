/**
 * Medians per preset and variant, what each banner adds to the page without one (the difference
 * within each round, then its median: rounds drift on a shared machine), and how ours compares
 * with the best peer.
 */
import type { LcpElement, Measurement, Metric, Preset } from './measure.ts';

export const NO_BANNER = 'no banner';
export const PEERS = ['cookieconsent', 'Klaro'];

export interface Sample {
  variant: string;
  preset: Preset;
  round: number;
  measurement: Measurement;
  /** The banner's requests (to another origin, or to the page's /banner/ files). */
  banner: { requests: number; jsCssBytes: number; allBytes: number; urls: string[] };
}

export interface Summary {
  variant: string;
  runs: number;
  median: Record<Metric, number>;
  /** Median over rounds of (this variant − no banner) in the same round. */
  added: Record<Metric, number>;
  /** The smallest and largest of those per-round differences: how far the runs spread. */
  addedRange: Record<Metric, [number, number]>;
  requestsAdded: number;
  jsCssBytes: number;
  allBytes: number;
  bannerUrls: string[];
  lcpElement: string;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Which of the page's requests are the banner's. */
export function bannerRequests(measurement: Measurement, pageOrigin: string): Sample['banner'] {
  const own = measurement.requests.filter((r) => /^https?:/.test(r.url));
  const banner = own.filter(
    (r) => !r.url.startsWith(`${pageOrigin}/`) || new URL(r.url).pathname.startsWith('/banner/'),
  );
  const sum = (list: typeof banner) => list.reduce((total, r) => total + r.transferSize, 0);
  return {
    requests: banner.length,
    jsCssBytes: sum(banner.filter((r) => r.resourceType === 'Script' || r.resourceType === 'Stylesheet')),
    allBytes: sum(banner),
    urls: banner.map((r) => `${r.resourceType} ${r.url.replace(/^https?:\/\/[^/]+/, '')}`),
  };
}

const describe = (e: LcpElement | null) =>
  e ? `${e.nodeName} ${e.type} ${Math.round(e.size).toLocaleString('en-US')} px²` : 'none';

/** The most frequent value (the LCP element can differ between runs). */
function mode(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const [best] = [...counts].sort((a, b) => b[1] - a[1]);
  return best[1] === values.length ? best[0] : `${best[0]} (${best[1]}/${values.length})`;
}

export function summarize(samples: Sample[], preset: Preset, variants: string[]): Summary[] {
  const of = (variant: string) => samples.filter((s) => s.preset === preset && s.variant === variant);
  const base = new Map(of(NO_BANNER).map((s) => [s.round, s.measurement.metrics]));
  return variants.map((variant) => {
    const runs = of(variant);
    const metricMedian = (pick: (s: Sample) => number) => median(runs.map(pick));
    const keys = Object.keys(runs[0].measurement.metrics) as Metric[];
    const per = <T>(f: (metric: Metric) => T) =>
      Object.fromEntries(keys.map((k) => [k, f(k)])) as Record<Metric, T>;
    const differences = (k: Metric) =>
      runs.flatMap((s) => {
        const b = base.get(s.round);
        return b ? [s.measurement.metrics[k] - b[k]] : [];
      });
    return {
      variant,
      runs: runs.length,
      median: per((k) => metricMedian((s) => s.measurement.metrics[k])),
      added: per((k) => median(differences(k))),
      addedRange: per((k) => [Math.min(...differences(k)), Math.max(...differences(k))] as [number, number]),
      requestsAdded: metricMedian((s) => s.banner.requests),
      jsCssBytes: metricMedian((s) => s.banner.jsCssBytes),
      allBytes: metricMedian((s) => s.banner.allBytes),
      bannerUrls: runs[0].banner.urls,
      lcpElement: mode(runs.map((s) => describe(s.measurement.lcpElement))),
    };
  });
}

const n0 = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const signed = (v: number) => (v >= 0 ? `+${n0(v)}` : `−${n0(-v)}`);

export function table(preset: Preset, rows: Summary[]): string {
  const header = [
    '',
    'LCP ms',
    '+LCP',
    'TBT ms',
    '+TBT',
    'CLS',
    'FCP ms',
    'SI ms',
    'req. added',
    'JS+CSS B',
    'all B',
    'LCP element',
  ];
  const isBase = (r: Summary) => r.variant === NO_BANNER;
  const lines = rows.map((r) => [
    r.variant,
    n0(r.median.lcp),
    isBase(r) ? '–' : signed(r.added.lcp),
    n0(r.median.tbt),
    isBase(r) ? '–' : signed(r.added.tbt),
    r.median.cls.toFixed(3),
    n0(r.median.fcp),
    n0(r.median.si),
    isBase(r) ? '–' : n0(r.requestsAdded),
    isBase(r) ? '–' : n0(r.jsCssBytes),
    isBase(r) ? '–' : n0(r.allBytes),
    r.lcpElement,
  ]);
  const cells = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const row = (line: string[]) =>
    `| ${line.map((c, i) => (i === 0 || i === 11 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    `${preset}, medians of ${rows[0].runs} runs`,
    row(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...lines.map(row),
  ].join('\n');
}

/** Ours (and ours before) against the page and the best peer, metric by metric. */
export function comparisons(rows: Summary[]): string[] {
  const base = rows.find((r) => r.variant === NO_BANNER)!;
  const peers = rows.filter((r) => PEERS.includes(r.variant));
  const ours = rows.filter((r) => r.variant.startsWith('ours'));
  const out: string[] = [];
  for (const r of ours) {
    for (const metric of ['lcp', 'tbt'] as const) {
      const best = [...peers].sort((a, b) => a.added[metric] - b.added[metric])[0];
      const times = (a: number, b: number) =>
        b > 0 && a >= 0 ? `${(a / b).toFixed(2)}×` : a <= b ? 'at or under' : 'over';
      out.push(
        `${r.variant}: ${metric.toUpperCase()} ${n0(r.median[metric])} ms (${times(r.median[metric], base.median[metric])} the page without a banner), adds ${signed(r.added[metric])} ms (runs ${signed(r.addedRange[metric][0])} to ${signed(r.addedRange[metric][1])}) vs ${peers.map((p) => `${p.variant} ${signed(p.added[metric])}`).join(', ')}: ${times(r.added[metric], best.added[metric])} the best peer's (${best.variant})`,
      );
    }
    const lightest = [...peers].sort((a, b) => a.jsCssBytes - b.jsCssBytes)[0];
    out.push(
      `${r.variant}: JS+CSS ${n0(r.jsCssBytes)} B = ${(r.jsCssBytes / lightest.jsCssBytes).toFixed(2)}× the lightest peer's (${lightest.variant}, ${n0(lightest.jsCssBytes)} B); requests: ${r.bannerUrls.join(', ')}`,
    );
  }
  return out;
}
