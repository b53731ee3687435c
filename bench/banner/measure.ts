/**
 * One Lighthouse run of one page in one preset, reduced to the figures the bench reports.
 *
 * Only the five scored metrics and the network-requests and final-screenshot audits run:
 * Lighthouse 12.2.3's largest-contentful-paint-element and layout-shifts audits (and the RootCauses
 * gatherer behind them) fail on the traces of current Chromium, so the LCP element is read from the
 * trace itself.
 */
import type { Deps, RunnerResult, TraceEvent } from './deps.ts';

export type Preset = 'mobile' | 'desktop';

export const METRIC_AUDITS = {
  lcp: 'largest-contentful-paint',
  tbt: 'total-blocking-time',
  cls: 'cumulative-layout-shift',
  fcp: 'first-contentful-paint',
  si: 'speed-index',
} as const;
export type Metric = keyof typeof METRIC_AUDITS;

export interface Request {
  url: string;
  resourceType: string;
  transferSize: number;
}

export interface LcpElement {
  nodeName: string;
  type: string;
  size: number;
}

export interface Measurement {
  metrics: Record<Metric, number>;
  lcpElement: LcpElement | null;
  requests: Request[];
  /** The page as Lighthouse last saw it (a JPEG data URL), to check the banner was drawn. */
  screenshot?: string;
}

/** The last LCP candidate of the outermost main frame: the element the page's LCP is. */
export function lcpElementOf(events: TraceEvent[]): LcpElement | null {
  let last: Record<string, any> | undefined;
  for (const event of events) {
    const data = event.args?.data;
    if (event.name === 'largestContentfulPaint::Candidate' && data && data.isOutermostMainFrame !== false) {
      last = data;
    }
  }
  return last
    ? { nodeName: String(last.nodeName ?? `node ${last.nodeId}`), type: last.type, size: last.size }
    : null;
}

function figures(result: RunnerResult): Measurement {
  const { audits, runtimeError } = result.lhr;
  if (runtimeError) throw new Error(`Lighthouse: ${runtimeError.code} ${runtimeError.message}`);
  const metrics = {} as Record<Metric, number>;
  for (const [metric, id] of Object.entries(METRIC_AUDITS) as [Metric, string][]) {
    const audit = audits[id];
    if (audit?.numericValue === undefined) throw new Error(`Lighthouse: no ${id} (${audit?.errorMessage})`);
    metrics[metric] = audit.numericValue;
  }
  const items = audits['network-requests']?.details?.items ?? [];
  const requests = items.map((item) => ({
    url: String(item.url),
    resourceType: String(item.resourceType ?? 'Other'),
    transferSize: Number(item.transferSize ?? 0),
  }));
  const screenshot = (audits['final-screenshot']?.details as { data?: string } | undefined)?.data;
  return { metrics, lcpElement: lcpElementOf(result.artifacts.Trace.traceEvents), requests, screenshot };
}

/** Runs Lighthouse on `url` in the Chromium listening on `port`, with `preset`'s settings. */
export async function measure(deps: Deps, port: number, url: string, preset: Preset): Promise<Measurement> {
  const flags = {
    port,
    logLevel: 'error',
    output: 'json',
    onlyAudits: [...Object.values(METRIC_AUDITS), 'network-requests', 'final-screenshot'],
  };
  const result = await deps.lighthouse(url, flags, preset === 'desktop' ? deps.desktopConfig : undefined);
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  return figures(result);
}
