/**
 * The measurement of consent writes (scenario b with the SDK's request shape: a distinct
 * subject and an `Idempotency-Key` on every write), in one run on PostgreSQL:
 *
 *   npx tsx bench/writepath.ts [--before DIR] [--scenario b|a] [--connections 10,32] [--rounds 3]
 *                              [--seconds 3] [--profile DIR] [--fastify] [--tcf]
 *
 * `--scenario a` measures config reads instead, against the static server of bench a (the README's start-up
 * figures compare a compiled start with tsx this way: a checkout holding build/main.js is started
 * from it, see bench/lib/service-at.ts).
 *
 * Sides: this checkout's service (`after`), optionally another checkout's (`--before`, e.g. a
 * worktree of main with node_modules linked), the same-shape INSERT server (bench_evidence, like
 * evidence_events) and the minimal INSERT server. Every round runs each side once, in a rotating
 * order (the machine is shared and drifts: ratios are taken within a round, then the median).
 * `--tcf` adds `after+tc`: this checkout's service again, writing to a second channel, made the same
 * but an IAB TCF channel, every write carrying a TC string, which the service decodes and checks
 * (bench/lib/tcf.ts); `after+tc/after` is what the decode costs a write. With `--before` too, the
 * before checkout gets its own TCF channel (`before+tc`, from its own bench/lib/tcf.ts), and
 * `after+tc/before+tc` is what a TCF write costs now against then (the TC string rules, say).
 * `--profile DIR` starts the services under `node --cpu-prof` (the profiles are written at exit).
 * Each side also reports its server CPU milliseconds per request (its process tree, from /proc):
 * on a 2-core machine shared with the load generator and PostgreSQL, that bounds throughput. With
 * PostgreSQL on this host, also PostgreSQL's CPU per request (`pgCpuMs`: all its processes, so other
 * clients' work too) and the load generator's (`loadCpuMs`: this process), so the three add up to
 * what a request costs the machine.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSecondsOfTree, postmasterPid } from './lib/cpu.ts';
import { type LoadFigures, type LoadSpec, load, median } from './lib/load.ts';
import { type Child, startChild } from './lib/processes.ts';
import { startServiceAt } from './lib/service-at.ts';
import { DEFAULT_DATABASE_URL, freshPostgres, prepare } from './lib/setup.ts';
import { prepareTcf } from './lib/tcf.ts';
import { consentWriteRequest } from './scenarios/http.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    // b: consent writes (this bench's purpose); a: config reads, against the static config server.
    scenario: { type: 'string', default: 'b' },
    connections: { type: 'string', default: '10,32' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    profile: { type: 'string' },
    // Also the same-shape INSERT behind a bare Fastify route (baselines/fastify-insert-server.ts).
    fastify: { type: 'boolean', default: false },
    // Also `after+tc`: the same service, every write carrying a TC string (its TCF channel's).
    tcf: { type: 'boolean', default: false },
  },
});
const say = (line: string) => process.stderr.write(`writepath: ${line}\n`);
const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const bench = await freshPostgres(url);
const fixture = await prepare(bench, '/tmp/consent-writepath-bench');
const tcf = flags.tcf ? await prepareTcf(bench, fixture, '/tmp/consent-writepath-bench') : null;
const env = { ...bench.env, ORGANIZATION_ID: fixture.organizationId, CHANNEL_ID: fixture.channelId };
const reads = flags.scenario === 'a';
const postmaster = await postmasterPid(url);

/** The --before side's database: beside this run's, named after it (so it contains "bench" too). */
function beforeDatabaseUrl(databaseUrl: string): string {
  const before = new URL(databaseUrl);
  before.pathname = `${before.pathname}_before`;
  return before.toString();
}

/**
 * The --before checkout gets a database of its own, migrated and filled by that checkout's own
 * bench setup: a migration this checkout adds (a NOT NULL column, say) would otherwise break the
 * older code's writes. The same steps make the same channel, so one request body fits both.
 */
function prepareBefore(root: string, databaseUrl: string, withTcf: boolean) {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-before-')), 'prepare.mts');
  const dataDir = '/tmp/consent-writepath-bench-before';
  // With --tcf, the before checkout's own TCF channel and string (its bench/lib/tcf.ts), so that
  // after+tc/before+tc is what a TCF write costs now against then.
  const tcfStep = withTcf
    ? `const { prepareTcf } = await import(${JSON.stringify(path.join(root, 'bench/lib/tcf.ts'))});
const tcf = await prepareTcf(bench, fixture, ${JSON.stringify(dataDir)});`
    : 'const tcf = null;';
  fs.writeFileSync(
    script,
    `const { freshPostgres, prepare } = await import(${JSON.stringify(path.join(root, 'bench/lib/setup.ts'))});
const bench = await freshPostgres(${JSON.stringify(databaseUrl)});
const fixture = await prepare(bench, ${JSON.stringify(dataDir)});
${tcfStep}
process.stdout.write(JSON.stringify({ env: bench.env, fixture, tcf }));
`,
  );
  const output = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output) as {
    env: Record<string, string>;
    fixture: { siteKey: string };
    tcf: { siteKey: string; configVersion: number; tcString: string } | null;
  };
}

/** A service (this checkout or --before's) or a baseline server; ratios are service/baseline. */
type Side = { name: string; child: Child; path: string; service: boolean };
const sides: Side[] = [];
const servicePath = `/v1/public/sites/${fixture.siteKey}/${reads ? 'config' : 'preferences'}`;
const after = await startServiceAt(process.cwd(), bench.env, flags.profile);
/** The --before checkout's TCF channel, with --tcf. */
let beforeTcf: { siteKey: string; configVersion: number; tcString: string } | null = null;
sides.push({ name: 'after', child: after, path: servicePath, service: true });
if (tcf)
  sides.push({
    name: 'after+tc',
    child: after,
    path: `/v1/public/sites/${tcf.siteKey}/preferences`,
    service: true,
  });
if (flags.before) {
  const prepared = prepareBefore(path.resolve(flags.before), beforeDatabaseUrl(url), Boolean(tcf));
  const before = await startServiceAt(flags.before, prepared.env, flags.profile);
  const beforePath = `/v1/public/sites/${prepared.fixture.siteKey}/${reads ? 'config' : 'preferences'}`;
  sides.push({ name: 'before', child: before, path: beforePath, service: true });
  beforeTcf = prepared.tcf;
  if (beforeTcf)
    sides.push({
      name: 'before+tc',
      child: before,
      path: `/v1/public/sites/${beforeTcf.siteKey}/preferences`,
      service: true,
    });
}
if (reads) {
  // The static server answers the very bytes the service answers.
  const answer = await fetch(`${after.baseUrl}${servicePath}`);
  const bodyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-')), 'config.json');
  fs.writeFileSync(bodyFile, Buffer.from(await answer.arrayBuffer()));
  const child = await startChild('bench/baselines/config-server.ts', [], { BODY_FILE: bodyFile });
  sides.push({ name: 'static', child, path: '/config', service: false });
} else {
  const sameShape = await startChild('bench/baselines/insert-server.ts', [], env);
  sides.push({ name: 'same-shape', child: sameShape, path: '/preferences', service: false });
  const minimal = await startChild('bench/baselines/minimal-insert-server.ts', [], env);
  sides.push({ name: 'minimal', child: minimal, path: '/preferences', service: false });
  if (flags.fastify) {
    const fastify = await startChild('bench/baselines/fastify-insert-server.ts', [], env);
    sides.push({ name: 'fastify', child: fastify, path: '/preferences', service: false });
  }
}

const { body, headers } = consentWriteRequest(fixture);
/** A +tc side's body: the same write to its TCF channel (at its current version), with the visitor's TC string. */
const tcBodyOf = (channel: { configVersion: number; tcString: string }) => () =>
  JSON.stringify({ ...JSON.parse(body()), configVersion: channel.configVersion, tcString: channel.tcString });
const bodyOf = (side: Side) =>
  side.name === 'after+tc' && tcf
    ? tcBodyOf(tcf)
    : side.name === 'before+tc' && beforeTcf
      ? tcBodyOf(beforeTcf)
      : body;
const specOf = (side: Side): LoadSpec =>
  reads
    ? { url: `${side.child.baseUrl}${side.path}` }
    : {
        url: `${side.child.baseUrl}${side.path}`,
        method: 'POST',
        headers,
        body: bodyOf(side),
        // The SDK sends a fresh Idempotency-Key with every write.
        idempotencyKey: side.service,
      };

const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const report: Record<string, unknown> = {};
try {
  for (const connections of flags.connections!.split(',').map(Number)) {
    const runs = new Map<string, LoadFigures[]>(sides.map((side) => [side.name, []]));
    /** Server CPU milliseconds per request, per run (user + system, the server's process tree). */
    const cpuMs = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    const pgCpuMs = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    const loadCpuMs = new Map<string, number[]>(sides.map((side) => [side.name, []]));
    for (const side of sides) await load(specOf(side), { seconds: 1, connections }); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round) % sides.length]);
      for (const side of order) {
        const pid = side.child.process.pid as number;
        const cpuBefore = cpuSecondsOfTree(pid);
        const pgBefore = postmaster === null ? 0 : cpuSecondsOfTree(postmaster);
        const loadBefore = process.cpuUsage();
        const figures = await load(specOf(side), { seconds, connections });
        const loadUsage = process.cpuUsage(loadBefore);
        const requests = figures.requestsPerSec * seconds;
        const perRequest = (cpuSeconds: number) => (requests > 0 ? (cpuSeconds * 1000) / requests : 0);
        cpuMs.get(side.name)!.push(perRequest(cpuSecondsOfTree(pid) - cpuBefore));
        if (postmaster !== null)
          pgCpuMs.get(side.name)!.push(perRequest(cpuSecondsOfTree(postmaster) - pgBefore));
        loadCpuMs.get(side.name)!.push(perRequest((loadUsage.user + loadUsage.system) / 1e6));
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
        ...(postmaster === null ? {} : { pgCpuMs: Number(median(pgCpuMs.get(side.name)!).toFixed(3)) }),
        loadCpuMs: Number(median(loadCpuMs.get(side.name)!).toFixed(3)),
        non2xx: figures.reduce((sum, f) => sum + f.non2xx + f.errors, 0),
      };
    }
    for (const service of sides.filter((side) => side.service)) {
      for (const baseline of sides.filter((side) => !side.service))
        row[`${service.name}/${baseline.name}`] = Number(ratio(service.name, baseline.name).toFixed(2));
    }
    if (flags.before) row['after/before'] = Number(ratio('after', 'before').toFixed(2));
    if (tcf) row['after+tc/after'] = Number(ratio('after+tc', 'after').toFixed(2));
    if (beforeTcf) row['after+tc/before+tc'] = Number(ratio('after+tc', 'before+tc').toFixed(2));
    report[`${connections} connections`] = row;
    say(`${connections} connections: ${JSON.stringify(row)}`);
  }
} finally {
  // after+tc shares after's process (before+tc before's): each child is stopped once.
  for (const child of new Set(sides.map((side) => side.child))) await child.stop();
}
process.stdout.write(`${JSON.stringify({ rounds, seconds, report }, null, 2)}\n`);
