/**
 * The measurement: how long a newcomer's single job waits while capped organizations
 * hold backlogs of the same kind.
 *
 *   npx tsx bench/job-turns.ts [--orgs 10,20] [--backlog 3] [--job-ms 300] [--embedded]
 *
 * One worker polls as in production (`start()`, the system clock), with a job kind that has the
 * scans' slots (JOB_SLOTS.scans: 2, one per organization) and whose jobs take `--job-ms` each (a
 * stand-in for a scan: the order of starts is the runner's, not the job's). Each capped organization
 * queues `--backlog` jobs; the newcomer queues one job, in two cases:
 *
 * - `with backlog`: right after the backlog is queued, before the worker starts;
 * - `after turns`: once every capped organization's first job has started.
 *
 * Printed per case: the newcomer's position among all starts (1-based, of how many), its wait
 * from its enqueue to its start, and that wait in jobs' durations. The script uses only what the
 * runner had before the change (createJobRunner, JOB_SLOTS), so the same file measures an older
 * checkout: copy it into that checkout's bench/ and run it there.
 *
 * PostgreSQL (a fresh database `consent_bench_job_turns` on the server of DATABASE_URL, default
 * 127.0.0.1:5432) unless `--embedded`.
 */
import { parseArgs } from 'node:util';
import { systemClock } from '../src/platform/clock.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { createEmbeddedStore, type Store } from '../src/platform/db/store.ts';
import { createJobQueue } from '../src/platform/jobs/job-queue.ts';
import { createJobRunner } from '../src/platform/jobs/job-runner.ts';
import { JOB_SLOTS } from '../src/worker.ts';
import { freshPostgres } from './lib/setup.ts';

const { values: flags } = parseArgs({
  options: {
    orgs: { type: 'string', default: '10,20' },
    backlog: { type: 'string', default: '3' },
    'job-ms': { type: 'string', default: '300' },
    embedded: { type: 'boolean', default: false },
  },
});
const backlog = Number(flags.backlog);
const jobMs = Number(flags['job-ms']);
const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openStore(): Promise<Store> {
  if (flags.embedded) return createEmbeddedStore();
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = '/consent_bench_job_turns';
  return (await freshPostgres(url.toString())).open();
}

interface Outcome {
  position: number;
  of: number;
  waitMs: number;
}

async function measure(
  store: Store,
  orgCount: number,
  when: 'with backlog' | 'after turns',
): Promise<Outcome> {
  const clock = systemClock;
  const queue = createJobQueue({ clock });
  const runner = createJobRunner({ store, clock, queue, log: silent });
  const kind = `bench.turns.${Math.random().toString(36).slice(2)}`;
  const starts: Array<{ label: string; at: number }> = [];
  runner.register(
    kind,
    async (payload: { label: string }) => {
      starts.push({ label: payload.label, at: performance.now() });
      await sleep(jobMs);
    },
    { ...JOB_SLOTS.scans },
  );
  const run = Math.random().toString(36).slice(2, 8);
  const orgs = Array.from({ length: orgCount }, (_, n) => `org_bench_${run}_${n + 1}`);
  for (let job = 1; job <= backlog; job++) {
    for (const org of orgs) {
      await store.tx((tx) =>
        queue.enqueue(tx, { kind, organizationId: org, payload: { label: `${org}#${job}` } }),
      );
      // Distinct times, as jobs queued one by one have.
      await sleep(1);
    }
  }
  const newcomer = `org_bench_${run}_new`;
  let queuedAt = 0;
  const queueNewcomer = async () => {
    await store.tx((tx) =>
      queue.enqueue(tx, { kind, organizationId: newcomer, payload: { label: `${newcomer}#1` } }),
    );
    queuedAt = performance.now();
  };
  if (when === 'with backlog') await queueNewcomer();
  await runner.start();
  if (when === 'after turns') {
    const firsts = new Set(orgs.map((org) => `${org}#1`));
    while (starts.filter((s) => firsts.has(s.label)).length < orgs.length) await sleep(5);
    await queueNewcomer();
  }
  const total = orgs.length * backlog + 1;
  while (starts.length < total) await sleep(20);
  await runner.stop(jobMs * 4);
  const index = starts.findIndex((s) => s.label === `${newcomer}#1`);
  return { position: index + 1, of: total, waitMs: starts[index].at - queuedAt };
}

const store = await openStore();
await runMigrations(store);
console.log(
  `store ${store.kind}; job kind with JOB_SLOTS.scans (${JOB_SLOTS.scans.concurrency} slots, ${JOB_SLOTS.scans.perOrganization} per organization); ${backlog} queued jobs per capped organization, ${jobMs} ms each`,
);
console.log('capped orgs | newcomer queued | position | wait ms | wait in jobs');
const results: Array<Record<string, unknown>> = [];
for (const orgCount of flags.orgs.split(',').map(Number)) {
  for (const when of ['with backlog', 'after turns'] as const) {
    const outcome = await measure(store, orgCount, when);
    results.push({ orgs: orgCount, when, ...outcome });
    console.log(
      `${String(orgCount).padStart(11)} | ${when.padEnd(15)} | ${`${outcome.position} of ${outcome.of}`.padStart(8)} | ${Math.round(outcome.waitMs).toString().padStart(7)} | ${(outcome.waitMs / jobMs).toFixed(1).padStart(12)}`,
    );
  }
}
console.log(JSON.stringify(results));
await store.close();
