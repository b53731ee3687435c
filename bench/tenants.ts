/**
 * One organization's heavy reads against another organization's visitors, on the embedded store:
 *
 *   npx tsx bench/tenants.ts [--before DIR] [--regions 100] [--keys 20] [--readers 8] [--seconds 20]
 *                            [--decisions-per-second 4] [--rounds 1]
 *
 * Each side (this checkout, `after`; optionally another checkout, `--before`, e.g. an extracted
 * commit with node_modules linked) gets a data directory prepared by its own code
 * (bench/children/tenants-prepare.ts): a heavy organization whose channel holds a year of analytics
 * for `--regions` regions, with `--keys` evidence:read keys, and a victim organization with a site.
 * The side's service starts (`serve`, the embedded store, the default rate limits) and is measured
 * alone first: one year-long `groupBy=region` read, and 20 of the victim's decisions one after
 * another. Then, for `--seconds`, `--readers` loops read that year grouped by region as fast as the
 * service answers, each taking the next of the keys in turn, while the victim's visitors send
 * `--decisions-per-second` decisions at a steady pace (each one given 20 s, as a browser would).
 * Reported per side: the victim's decision latency alone and during the reads (p50, p99, timeouts),
 * and the heavy organization's reads (answered, refused with 429, their median). The sides run one
 * after the other (one embedded store at a time), alternating over `--rounds`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/processes.ts';
import { machine } from './lib/report.ts';
import { startServiceAt } from './lib/service-at.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    regions: { type: 'string', default: '100' },
    keys: { type: 'string', default: '20' },
    readers: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '20' },
    'decisions-per-second': { type: 'string', default: '4' },
    rounds: { type: 'string', default: '1' },
  },
});
const say = (line: string) => process.stderr.write(`tenants: ${line}\n`);
const DECISION_TIMEOUT_MS = 20_000;
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

interface Prepared {
  heavy: { channelId: string; keys: string[] };
  victim: { siteKey: string; configVersion: number };
  origin: string;
}

function prepare(root: string, dataDir: string): Prepared {
  fs.rmSync(dataDir, { recursive: true, force: true });
  const output = execFileSync(
    TSX,
    [path.join(ROOT, 'bench/children/tenants-prepare.ts'), root, dataDir, flags.regions, flags.keys],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(output.trim().split('\n').pop() as string);
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};

/** A year of the heavy channel, by region, up to today (UTC). */
function yearQuery(fixture: Prepared) {
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  return `/v1/analytics/consent?${new URLSearchParams({ channelId: fixture.heavy.channelId, from, to, groupBy: 'region' })}`;
}

/** One of the victim's decisions: its time, or null when it took over DECISION_TIMEOUT_MS. */
async function decide(baseUrl: string, fixture: Prepared, i: number): Promise<number | null> {
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}/v1/public/sites/${fixture.victim.siteKey}/preferences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: fixture.origin },
      body: JSON.stringify({
        subjectId: `visitor-${i}-${Math.random()}`,
        decisions: { analytics: 'granted', marketing: 'denied' },
        configVersion: fixture.victim.configVersion,
      }),
      signal: AbortSignal.timeout(DECISION_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`a decision answered ${res.status}`);
    return performance.now() - started;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return null;
    throw error;
  }
}

async function heavyRead(baseUrl: string, url: string, key: string) {
  const started = performance.now();
  const res = await fetch(`${baseUrl}${url}`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  if (res.status !== 200 && res.status !== 429) throw new Error(`a heavy read answered ${res.status}`);
  return { status: res.status, ms: performance.now() - started };
}

interface SideFigures {
  side: string;
  aloneReadMs: number;
  quiet: { p50: number; p99: number };
  during: { decisions: number; p50: number; p99: number; timeouts: number };
  reads: { answered: number; refused: number; p50: number };
}

async function measure(side: string, root: string): Promise<SideFigures> {
  const dataDir = path.join(os.tmpdir(), `cs-bench-tenants-${side}`);
  say(`${side}: preparing ${flags.regions} regions of a year, ${flags.keys} keys (${root})`);
  const fixture = prepare(root, dataDir);
  const service = await startServiceAt(root, { DATA_DIR: dataDir, DATABASE_URL: '' }, undefined, 'all', [], {
    // The documented defaults: what a tenant gets.
    RATE_LIMIT_PER_MINUTE: '100',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '100000',
  });
  try {
    const url = yearQuery(fixture);
    const { keys } = fixture.heavy;
    await heavyRead(service.baseUrl, url, keys[0]);
    const aloneReadMs = (await heavyRead(service.baseUrl, url, keys[1])).ms;
    const quiet: number[] = [];
    for (let i = 0; i < 20; i++)
      quiet.push((await decide(service.baseUrl, fixture, i)) ?? DECISION_TIMEOUT_MS);

    const deadline = Date.now() + Number(flags.seconds) * 1000;
    let next = 0;
    const reads: Array<{ status: number; ms: number }> = [];
    const readers = Array.from({ length: Number(flags.readers) }, async () => {
      while (Date.now() < deadline)
        reads.push(await heavyRead(service.baseUrl, url, keys[next++ % keys.length]));
    });
    const decisions: Array<Promise<number | null>> = [];
    const everyMs = 1000 / Number(flags['decisions-per-second']);
    for (let i = 0; Date.now() < deadline; i++) {
      decisions.push(decide(service.baseUrl, fixture, 1000 + i));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    const times = await Promise.all(decisions);
    await Promise.all(readers);
    const answered = times.filter((ms): ms is number => ms !== null);
    const ok = reads.filter((r) => r.status === 200);
    return {
      side,
      aloneReadMs,
      quiet: { p50: percentile(quiet, 0.5), p99: percentile(quiet, 0.99) },
      during: {
        decisions: times.length,
        // A timed-out decision counts as its timeout in the percentiles.
        p50: percentile(
          [...answered, ...times.filter((t) => t === null).map(() => DECISION_TIMEOUT_MS)],
          0.5,
        ),
        p99: percentile(
          [...answered, ...times.filter((t) => t === null).map(() => DECISION_TIMEOUT_MS)],
          0.99,
        ),
        timeouts: times.length - answered.length,
      },
      reads: {
        answered: ok.length,
        refused: reads.length - ok.length,
        p50: percentile(
          ok.map((r) => r.ms),
          0.5,
        ),
      },
    };
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const sides: Array<[string, string]> = [['after', process.cwd()]];
if (flags.before) sides.push(['before', path.resolve(flags.before)]);
const results: SideFigures[] = [];
for (let round = 0; round < Number(flags.rounds); round++) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const [side, root] of order) results.push(await measure(side, root));
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');
const lines = [
  `${flags.readers} readers over ${flags.keys} keys, a year by region of ${flags.regions} regions, ${flags.seconds} s, ${flags['decisions-per-second']} decisions/s`,
  '| side | heavy read alone ms | decisions alone p50/p99 ms | decisions during: n, p50/p99 ms, timeouts | heavy reads: 200s, 429s, p50 ms |',
  '| --- | --- | --- | --- | --- |',
  ...results.map(
    (r) =>
      `| ${r.side} | ${f0(r.aloneReadMs)} | ${f0(r.quiet.p50)} / ${f0(r.quiet.p99)} | ${r.during.decisions}, ${f0(r.during.p50)} / ${f0(r.during.p99)}, ${r.during.timeouts} | ${r.reads.answered}, ${r.reads.refused}, ${f0(r.reads.p50)} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(
  path.join(ROOT, 'bench/results/tenants.json'),
  `${JSON.stringify({ machine: machine(), flags, results }, null, 2)}\n`,
);
