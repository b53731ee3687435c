/**
 * Issue 23's measurement of consent writes (scenario b with the SDK's request shape: a distinct
 * subject and an `Idempotency-Key` on every write), in one run on PostgreSQL:
 *
 *   npx tsx bench/writepath.ts [--before DIR] [--connections 10,32] [--rounds 3] [--seconds 3] [--profile DIR]
 *
 * Sides: this checkout's service (`after`), optionally another checkout's (`--before`, e.g. a
 * worktree of main with node_modules linked), the same-shape INSERT server (bench_evidence, like
 * evidence_events) and the minimal INSERT server. Every round runs each side once, in a rotating
 * order (the machine is shared and drifts: ratios are taken within a round, then the median).
 * `--profile DIR` starts the services under `node --cpu-prof` (the profiles are written at exit).
 * Each side also reports its server CPU milliseconds per request (its process tree, from /proc):
 * on a 2-core machine shared with the load generator and PostgreSQL, that bounds throughput.
 */
import { parseArgs } from 'node:util';
import { cpuSecondsOfTree } from './lib/cpu.ts';
import { type LoadFigures, type LoadSpec, load, median } from './lib/load.ts';
import { type Child, startChild } from './lib/processes.ts';
import { startServiceAt } from './lib/service-at.ts';
import { DEFAULT_DATABASE_URL, freshPostgres, prepare } from './lib/setup.ts';
import { consentWriteRequest } from './scenarios/http.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    connections: { type: 'string', default: '10,32' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    profile: { type: 'string' },
  },
});
const say = (line: string) => process.stderr.write(`writepath: ${line}\n`);
const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const bench = await freshPostgres(url);
const fixture = await prepare(bench, '/tmp/consent-writepath-bench');
const env = { ...bench.env, ORGANIZATION_ID: fixture.organizationId, CHANNEL_ID: fixture.channelId };

const sides: Array<{ name: string; child: Child; path: string; keyed: boolean }> = [];
const after = await startServiceAt(process.cwd(), bench.env, flags.profile);
sides.push({
  name: 'after',
  child: after,
  path: `/v1/public/sites/${fixture.siteKey}/preferences`,
  keyed: true,
});
if (flags.before) {
  const before = await startServiceAt(flags.before, bench.env, flags.profile);
  sides.push({
    name: 'before',
    child: before,
    path: `/v1/public/sites/${fixture.siteKey}/preferences`,
    keyed: true,
  });
}
sides.push({
  name: 'same-shape',
  child: await startChild('bench/baselines/insert-server.ts', [], env),
  path: '/preferences',
  keyed: false,
});
sides.push({
  name: 'minimal',
  child: await startChild('bench/baselines/minimal-insert-server.ts', [], env),
  path: '/preferences',
  keyed: false,
});

const { body, headers } = consentWriteRequest(fixture);
const specOf = (side: (typeof sides)[number]): LoadSpec => ({
  url: `${side.child.baseUrl}${side.path}`,
  method: 'POST',
  headers,
  body,
  // The SDK sends a fresh Idempotency-Key with every write.
  idempotencyKey: side.keyed,
});

const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const report: Record<string, unknown> = {};
try {
  for (const connections of flags.connections!.split(',').map(Number)) {
    const runs = new Map<string, LoadFigures[]>(sides.map((side) => [side.name, []]));
    /** Server CPU milliseconds per request, per run (user + system, the server's process tree). */
    const cpuMs = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    for (const side of sides) await load(specOf(side), { seconds: 1, connections }); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length]);
      for (const side of order) {
        const pid = side.child.process.pid as number;
        const cpuBefore = cpuSecondsOfTree(pid);
        const figures = await load(specOf(side), { seconds, connections });
        const requests = figures.requestsPerSec * seconds;
        cpuMs
          .get(side.name)!
          .push(requests > 0 ? ((cpuSecondsOfTree(pid) - cpuBefore) * 1000) / requests : 0);
        runs.get(side.name)!.push(figures);
      }
    }
    const ratio = (a: string, b: string) =>
      median(runs.get(a)!.map((run, i) => run.requestsPerSec / runs.get(b)![i].requestsPerSec));
    const row: Record<string, unknown> = {};
    for (const side of sides) {
      const figures = runs.get(side.name)!;
      row[side.name] = {
        reqPerSec: Math.round(median(figures.map((f) => f.requestsPerSec))),
        p99Ms: median(figures.map((f) => f.p99Ms)),
        cpuMsPerRequest: Number(median(cpuMs.get(side.name)!).toFixed(3)),
        non2xx: figures.reduce((sum, f) => sum + f.non2xx + f.errors, 0),
      };
    }
    for (const service of sides.filter((side) => side.keyed)) {
      row[`${service.name}/same-shape`] = Number(ratio(service.name, 'same-shape').toFixed(2));
      row[`${service.name}/minimal`] = Number(ratio(service.name, 'minimal').toFixed(2));
    }
    if (flags.before) row['after/before'] = Number(ratio('after', 'before').toFixed(2));
    report[`${connections} connections`] = row;
    say(`${connections} connections: ${JSON.stringify(row)}`);
  }
} finally {
  for (const side of sides) await side.child.stop();
}
process.stdout.write(`${JSON.stringify({ rounds, seconds, report }, null, 2)}\n`);
