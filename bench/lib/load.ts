import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

/** One autocannon run's figures. */
export interface LoadFigures {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx (a run with any is not comparable and is reported as such). */
  non2xx: number;
  errors: number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fresh body for every request (distinct subject ids); omitted for reads. */
  body?: () => string;
  /** A fresh `Idempotency-Key` on every request, as the SDK sends. */
  idempotencyKey?: boolean;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
}

export async function load(spec: LoadSpec, options: LoadOptions): Promise<LoadFigures> {
  const makeBody = spec.body;
  const result = await autocannon({
    url: spec.url,
    connections: options.connections,
    duration: options.seconds,
    headers: spec.headers,
    method: spec.method ?? 'GET',
    // setupRequest runs per request, so every POST carries a distinct body.
    requests: makeBody
      ? [
          {
            method: spec.method ?? 'GET',
            setupRequest: (request) =>
              spec.idempotencyKey
                ? {
                    ...request,
                    body: makeBody(),
                    headers: { ...request.headers, 'idempotency-key': randomUUID() },
                  }
                : { ...request, body: makeBody() },
          },
        ]
      : undefined,
  });
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export interface Comparison {
  service: LoadFigures;
  baseline: LoadFigures;
  /**
   * The median over rounds of service req/s ÷ baseline req/s, each round's two runs back to back:
   * the machine's speed drifts by tens of percent between runs here, and a pair shares its drift.
   */
  ratio: number;
  /** Each round's ratio, in round order. */
  roundRatios: number[];
  rounds: number;
}

function medianFigures(runs: LoadFigures[]): LoadFigures {
  return {
    requestsPerSec: median(runs.map((r) => r.requestsPerSec)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

/**
 * Alternates service and baseline runs (the machine is shared and noisy: drifts in its load hit
 * both sides alike) after one short warm-up each, and compares the medians.
 */
export async function compare(
  service: LoadSpec,
  baseline: LoadSpec,
  options: LoadOptions & { rounds: number },
): Promise<Comparison> {
  const warmup = { ...options, seconds: Math.min(2, options.seconds) };
  await load(service, warmup);
  await load(baseline, warmup);
  const serviceRuns: LoadFigures[] = [];
  const baselineRuns: LoadFigures[] = [];
  for (let round = 0; round < options.rounds; round++) {
    // Swap who goes first each round, so neither side always follows the other's after-effects.
    if (round % 2 === 0) {
      serviceRuns.push(await load(service, options));
      baselineRuns.push(await load(baseline, options));
    } else {
      baselineRuns.push(await load(baseline, options));
      serviceRuns.push(await load(service, options));
    }
  }
  const roundRatios = serviceRuns.map((run, i) => run.requestsPerSec / baselineRuns[i].requestsPerSec);
  return {
    service: medianFigures(serviceRuns),
    baseline: medianFigures(baselineRuns),
    ratio: median(roundRatios),
    roundRatios,
    rounds: options.rounds,
  };
}

/** p50/p99 of `n` sequential calls of fn, in milliseconds. */
export async function sequentialLatency(n: number, fn: (i: number) => Promise<void>) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50Ms: at(0.5), p99Ms: at(0.99), n };
}
