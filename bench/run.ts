/**
 * `npm run bench [-- --embedded] [--quick] [--large] [--only a,b,c,d,e,f,g,h]`: the service beside
 * baselines measured in the same run, so the ratios hold on a noisy machine. See README "Benchmarks" for what
 * each scenario compares. CI never runs this: it takes minutes and its figures need a quiet machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createEmbeddedStore } from '../src/platform/db/store.ts';
import { type Child, ROOT, runJsonChild, startService } from './lib/processes.ts';
import { fmt, loadRow, machine, type Row, table } from './lib/report.ts';
import {
  type BenchStore,
  DEFAULT_DATABASE_URL,
  freshEmbedded,
  freshPostgres,
  prepare,
  seedEvidence,
} from './lib/setup.ts';
import { aggregateSeeded, yearQueries } from './scenarios/analytics.ts';
import { backfillSeeded, rawLookups, recordSubjects, serviceLookups } from './scenarios/consent-state.ts';
import { type Latency, medianLatency, type Query, rawWalk, serviceWalk } from './scenarios/evidence-page.ts';
import { channelsList, configRead, consentWrite, type Rounds } from './scenarios/http.ts';
import { ledgerScenario } from './scenarios/ledger.ts';

const { values: flags } = parseArgs({
  options: {
    embedded: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    // 10 M events: about ten times the seeding, sealing and export time and ~10 GB of disk; off by default.
    large: { type: 'boolean', default: false },
    // f seals every event (1 M: under a minute at the tens of thousands of events/s measured here);
    // --ledger-cap N seals only the first N, for a quick look at a large run.
    'ledger-cap': { type: 'string' },
    only: { type: 'string', default: 'a,b,c,d,e,f,g,h' },
  },
});
const only = new Set(flags.only!.split(','));
const events = flags.large ? 10_000_000 : flags.quick ? 100_000 : 1_000_000;
const rounds: Rounds = flags.quick
  ? { rounds: 3, seconds: 2, connections: 32 }
  : { rounds: 8, seconds: 3, connections: 32 };
const pageRounds = 3;
// Pages walked on each side before measuring, so both run JIT-compiled code (steady state).
const warmupPages = 200;
// A p99 over 1,000 pages rests on its 10 slowest, not on the 3 slowest of 300.
const pagesPerRound = flags.quick ? 100 : 1000;
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-bench-'));
let bench: BenchStore;
if (flags.embedded) {
  bench = freshEmbedded(dataDir);
  say(`embedded store (PGlite) in ${dataDir}`);
} else {
  if (!process.env.DATABASE_URL) say(`DATABASE_URL unset: using ${DEFAULT_DATABASE_URL}`);
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  bench = await freshPostgres(url);
  say(`PostgreSQL, fresh database ${new URL(url).pathname.slice(1)} (dropped and recreated)`);
}
say(
  `service started with LOG_LEVEL=silent and RATE_LIMIT_PER_MINUTE/PUBLIC_RATE_LIMIT_PER_MINUTE=1000000 (limits never answer 429 here); ${rounds.rounds} alternating rounds × ${rounds.seconds} s × ${rounds.connections} connections per side; events: ${fmt.f0(events)}${flags.large ? '' : ' (--large for 10 M)'}`,
);

const fixture = await prepare(bench, dataDir);
// PostgreSQL: an API replica (no worker). Embedded: one process holds the store, so `all` (sealing deferred).
const role = bench.kind === 'postgres' ? 'api' : 'all';
const rows: Row[] = [];
const results: Record<string, unknown> = {
  store: bench.kind,
  startedAt: new Date().toISOString(),
  machine: machine(),
  settings: { events, ...rounds, pageRounds, pagesPerRound },
};

async function withService<T>(fn: (service: Child) => Promise<T>): Promise<T> {
  const service = await startService(bench.env, role);
  try {
    return await fn(service);
  } finally {
    await service.stop();
  }
}

await withService(async (service) => {
  if (only.has('a')) {
    say('a. config read');
    const c = await configRead(service.baseUrl, fixture, rounds);
    results.configRead = c;
    rows.push(loadRow('a. GET …/config vs bare node:http (same bytes)', c, 0.8));
  }
  if (only.has('b')) {
    say('b. consent write');
    const c = await consentWrite(service.baseUrl, bench, fixture, rounds);
    results.consentWrite = c;
    rows.push(loadRow('b. POST …/preferences vs bare node:http + one INSERT', c, 0.7));
  }
  if (only.has('c')) {
    say('c. channels list');
    const c = await channelsList(service.baseUrl, bench, fixture, rounds);
    results.channelsList = c;
    rows.push(loadRow('c. GET /v1/channels vs bare Fastify, same SQL', c, null));
  }
});

if (['d', 'e', 'f', 'g', 'h'].some((s) => only.has(s))) {
  say(`seeding ${fmt.f0(events)} evidence events (INSERT … SELECT generate_series)`);
  const seed = await seedEvidence(bench, fixture, events);
  results.seed = seed;
  say(`seeded in ${fmt.f1(seed.seconds)} s (${fmt.f0(seed.rowsPerSec)} rows/s)`);
}

if (only.has('d')) {
  say('d. evidence page');
  const service: Latency[] = [];
  const raw: Latency[] = [];
  if (bench.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: bench.env.DATABASE_URL, max: 1 });
    const query: Query = (text, params) => pool.query(text, params);
    await withService(async (s) => {
      await serviceWalk(s.baseUrl, fixture, warmupPages);
      await rawWalk(query, fixture, warmupPages);
      for (let i = 0; i < pageRounds; i++) {
        service.push(await serviceWalk(s.baseUrl, fixture, pagesPerRound));
        raw.push(await rawWalk(query, fixture, pagesPerRound));
      }
    });
    await pool.end();
  } else {
    // One process at a time on PGlite: the raw rounds run in this process before the service starts.
    const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'pgdata') });
    const query: Query = (text, params) => store.pglite!.query(text, params);
    await rawWalk(query, fixture, warmupPages);
    for (let i = 0; i < pageRounds; i++) raw.push(await rawWalk(query, fixture, pagesPerRound));
    await store.close();
    await withService(async (s) => {
      await serviceWalk(s.baseUrl, fixture, warmupPages);
      for (let i = 0; i < pageRounds; i++) service.push(await serviceWalk(s.baseUrl, fixture, pagesPerRound));
    });
  }
  const s = medianLatency(service);
  const r = medianLatency(raw);
  const ratio = s.p99Ms / r.p99Ms;
  results.evidencePage = { events, service: s, raw: r, p99Ratio: ratio };
  rows.push({
    scenario: `d. GET /v1/evidence page at ${fmt.f0(events)} events vs raw keyset SQL (${s.n} sequential pages)`,
    service: `p50 ${fmt.f2(s.p50Ms)} / p99 ${fmt.f2(s.p99Ms)} ms (HTTP)`,
    baseline: `p50 ${fmt.f2(r.p50Ms)} / p99 ${fmt.f2(r.p99Ms)} ms (in-process query)`,
    ratio: `p99 ×${fmt.f2(ratio)}`,
    target: `p99 ≤ 1.5× ${ratio <= 1.5 ? 'met' : 'MISSED'}`,
  });
}

if (only.has('e')) {
  say('e. export');
  const childEnv = { ...bench.env, DATA_DIR: dataDir, ORGANIZATION_ID: fixture.organizationId };
  const exported = await runJsonChild('bench/children/export.ts', [], childEnv);
  const copied =
    bench.kind === 'postgres' ? await runJsonChild('bench/children/copy.ts', [], childEnv) : null;
  results.export = { service: exported, copy: copied };
  const side = (x: any) =>
    `${fmt.f0(x.rows)} rows in ${fmt.f1(x.seconds)} s = ${fmt.f0(x.rowsPerSec)} rows/s, peak RSS ${fmt.f0(x.peakRssMb)} MB`;
  rows.push({
    scenario: 'e. export (JSONL) vs COPY … TO STDOUT of the same rows',
    service: side(exported),
    baseline: copied ? side(copied) : 'n/a on the embedded store (PGlite has no COPY TO STDOUT to a client)',
    ratio: copied ? `${fmt.f2(exported.rowsPerSec / copied.rowsPerSec)} (rows/s)` : '',
    target: '',
  });
}

if (only.has('f')) {
  say('f. ledger');
  const sealCap = flags['ledger-cap'] ? Number(flags['ledger-cap']) : Number.POSITIVE_INFINITY;
  if (!(sealCap > 0)) throw new Error('--ledger-cap must be a positive number of events');
  const f = await ledgerScenario(bench, fixture, dataDir, events, flags.quick ? 100 : 300, sealCap);
  results.ledger = f;
  rows.push({
    scenario: `f. ledger: seal ${fmt.f0(f.sealed)} events; inclusion proof at ${fmt.f0(f.treeSize ?? 0)} leaves`,
    service: `${fmt.f0(f.sealedPerSec)} events/s sealed; proof p50 ${fmt.f2(f.proof.p50Ms)} / p99 ${fmt.f2(f.proof.p99Ms)} ms (in-process)`,
    baseline: 'none (no bare equivalent)',
    ratio: '',
    target: '',
  });
}

if (only.has('g')) {
  say('g. consent state: backfill of the seeded events, then lookups');
  const backfill = await backfillSeeded(bench);
  say(`backfilled ${fmt.f0(backfill.events)} events in ${fmt.f1(backfill.seconds)} s`);
  const service: Latency[] = [];
  const raw: Latency[] = [];
  const lookups = flags.quick ? 300 : 1000;
  const secretOf = async (query: Query) =>
    (await query('select pseudonym_secret from organizations where id = $1', [fixture.organizationId]))
      .rows[0].pseudonym_secret as Buffer;
  if (bench.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: bench.env.DATABASE_URL, max: 1 });
    const query: Query = (text, params) => pool.query(text, params);
    const secret = await secretOf(query);
    await withService(async (s) => {
      await recordSubjects(s.baseUrl, fixture);
      await serviceLookups(s.baseUrl, fixture, warmupPages);
      await rawLookups(query, fixture, secret, warmupPages);
      for (let i = 0; i < pageRounds; i++) {
        service.push(await serviceLookups(s.baseUrl, fixture, lookups));
        raw.push(await rawLookups(query, fixture, secret, lookups));
      }
    });
    await pool.end();
  } else {
    await withService(async (s) => {
      await recordSubjects(s.baseUrl, fixture);
      await serviceLookups(s.baseUrl, fixture, warmupPages);
      for (let i = 0; i < pageRounds; i++) service.push(await serviceLookups(s.baseUrl, fixture, lookups));
    });
    const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'pgdata') });
    const query: Query = (text, params) => store.pglite!.query(text, params);
    const secret = await secretOf(query);
    await rawLookups(query, fixture, secret, warmupPages);
    for (let i = 0; i < pageRounds; i++) raw.push(await rawLookups(query, fixture, secret, lookups));
    await store.close();
  }
  const s = medianLatency(service);
  const r = medianLatency(raw);
  const ratio = s.p99Ms / r.p99Ms;
  results.consentState = {
    events,
    backfill,
    service: s,
    raw: r,
    p50Ratio: s.p50Ms / r.p50Ms,
    p99Ratio: ratio,
  };
  rows.push({
    scenario: `g. GET /v1/consent-state at ${fmt.f0(events)} events vs the raw primary-key select (${s.n} sequential lookups); backfill of ${fmt.f0(backfill.events)} events`,
    service: `p50 ${fmt.f2(s.p50Ms)} / p99 ${fmt.f2(s.p99Ms)} ms (HTTP); backfill ${fmt.f1(backfill.seconds)} s (${fmt.f0(backfill.eventsPerSec)} events/s)`,
    baseline: `p50 ${fmt.f2(r.p50Ms)} / p99 ${fmt.f2(r.p99Ms)} ms (in-process query)`,
    ratio: `p50 ×${fmt.f2(s.p50Ms / r.p50Ms)}, p99 ×${fmt.f2(ratio)}`,
    target: '',
  });
}

if (only.has('h')) {
  say('h. consent analytics: a one-year query at a tenth of the events, then at all of them');
  const queries = flags.quick ? 100 : 300;
  const at: Record<string, { aggregate: { events: number; seconds: number }; latency: Latency }> = {};
  for (const n of [Math.round(events / 10), events]) {
    const aggregate = await aggregateSeeded(bench, n);
    const latency: Latency[] = [];
    await withService(async (s) => {
      await yearQueries(s.baseUrl, fixture, 50);
      for (let i = 0; i < pageRounds; i++) latency.push(await yearQueries(s.baseUrl, fixture, queries));
    });
    at[n] = { aggregate, latency: medianLatency(latency) };
  }
  const [small, large] = Object.values(at);
  const ratio = large.latency.p99Ms / small.latency.p99Ms;
  results.analytics = { at, p99Ratio: ratio };
  rows.push({
    scenario: `h. GET /v1/analytics/consent, one year by day, at ${fmt.f0(large.aggregate.events)} vs ${fmt.f0(small.aggregate.events)} events (${large.latency.n} sequential queries each)`,
    service: `p50 ${fmt.f2(large.latency.p50Ms)} / p99 ${fmt.f2(large.latency.p99Ms)} ms`,
    baseline: `p50 ${fmt.f2(small.latency.p50Ms)} / p99 ${fmt.f2(small.latency.p99Ms)} ms`,
    ratio: `p99 ×${fmt.f2(ratio)}`,
    target: `p99 ratio near 1 ${ratio <= 1.5 ? 'met' : 'MISSED'}`,
  });
}

results.table = table(rows);
const out = path.join(
  ROOT,
  'bench/results',
  bench.kind === 'embedded' ? 'latest-embedded.json' : 'latest.json',
);
if (!flags.quick && flags.only === 'a,b,c,d,e,f,g,h')
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
else say(`partial or --quick run: ${path.relative(ROOT, out)} left as it was`);
process.stdout.write(
  `\n${bench.kind === 'embedded' ? 'Embedded store (PGlite)' : 'PostgreSQL'}\n\n${table(rows)}\n`,
);
fs.rmSync(dataDir, { recursive: true, force: true });
