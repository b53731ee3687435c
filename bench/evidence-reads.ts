/**
 * The read figures: evidence pages and `POST /v1/consent-state/lookups` (100 subjects) on a
 * filled evidence table, before and after partitioning, in one run on PostgreSQL:
 *
 *   npx tsx bench/evidence-reads.ts [--before DIR] [--events 1000000] [--runs 100]
 *
 * Each side (this checkout, `after`; optionally another checkout, `before`) gets a database of its
 * own, migrated and set up by that checkout's own bench/lib/setup.ts, 100 subjects who decide through
 * its service (the lookups' subjects), and the same `--events` live events made by SQL over the last
 * 360 days of the channel: regions DE 50 %, GB 19 %, US subdivisions 20 %, US 10 %, FR 1 %; source
 * `api` 2 % (the rest banner); analytics granted on a third. On the partitioned side the months they
 * fall in are made first, as the job would have made them ahead. Then each side's service answers, in
 * turn (`--rounds` times, alternating), `--runs` sequential requests of each page (after one warm-up request) and of the lookups;
 * the figures are p50/p99 in ms.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sequentialLatency } from './lib/load.ts';
import { ROOT } from './lib/processes.ts';
import { startServiceAt } from './lib/service-at.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});
const EVENTS = Number(flags.events);
const RUNS = Number(flags.runs);
const SUBJECTS = 100;
const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/consent_bench';
const say = (line: string) => process.stderr.write(`evidence-reads: ${line}\n`);
const subjectId = (i: number) => `reads-subject-${i}`;

function databaseUrl(name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The events, by SQL, one every 360 days / EVENTS back from now. */
const EVENTS_SQL = `
  insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
    config_version, policy_version, source, language, gpc, origin, region, recorded_at, receipt_hash)
  select $1, 'evt_reads' || lpad(g::text, 12, '0'), 'live', $2,
    'psn_' || encode(sha256(convert_to('s' || g, 'UTF8')), 'hex'),
    jsonb_build_object('necessary', 'granted', 'analytics', case when g % 3 = 0 then 'granted' else 'denied' end,
      'marketing', 'denied'),
    $3, '2024-05', case when g % 50 = 0 then 'api' else 'banner' end, 'en', false, 'https://shop.example.com',
    case when g % 100 = 99 then 'FR' when g % 10 < 5 then 'DE' when g % 10 < 7 then 'US-' || (array['CA','NY','TX','VA','CO'])[1 + g % 5]
      when g % 10 = 7 then 'US' else 'GB' end,
    now() - interval '1 hour' - make_interval(secs => (g::float8 * 360 * 86400 / $4)),
    encode(sha256(convert_to('r' || g, 'UTF8')), 'hex')
  from generate_series($5::int, $6::int) g`;

async function side(label: string, root: string) {
  const setup = await import(`${root}/bench/lib/setup.ts`);
  const bench = await setup.freshPostgres(databaseUrl(`bench_reads_${label}`));
  const dataDir = path.join(os.tmpdir(), `bench-reads-${label}-${process.pid}`);
  const fixture = await setup.prepare(bench, dataDir);
  const service = await startServiceAt(root, bench.env);
  for (let i = 0; i < SUBJECTS; i++) {
    const res = await fetch(`${service.baseUrl}/v1/public/sites/${fixture.siteKey}/preferences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://shop.example.com' },
      body: JSON.stringify({
        subjectId: subjectId(i),
        decisions: { analytics: 'granted', marketing: 'granted' },
        configVersion: fixture.configVersion,
      }),
    });
    if (res.status !== 201) throw new Error(`preferences: ${res.status} ${await res.text()}`);
  }
  await service.stop();
  const store = await bench.open();
  const pool = store.pool!;
  const { rows } = await pool.query(
    `select to_regproc('evidence_partitions_ensure') is not null as partitioned`,
  );
  if (rows[0].partitioned) {
    await pool.query(`select evidence_partitions_ensure('live', now() - interval '361 days', now())`);
  }
  const started = Date.now();
  const chunk = 200_000;
  for (let from = 1; from <= EVENTS; from += chunk) {
    await pool.query(EVENTS_SQL, [
      fixture.organizationId,
      fixture.channelId,
      fixture.configVersion,
      EVENTS,
      from,
      Math.min(EVENTS, from + chunk - 1),
    ]);
  }
  await pool.query('vacuum analyze evidence_events');
  say(`${label}: ${EVENTS} events in ${Math.round((Date.now() - started) / 1000)} s`);
  await store.close();
  return { label, root, bench, fixture };
}

type Side = Awaited<ReturnType<typeof side>>;

async function measure(s: Side) {
  const service = await startServiceAt(s.root, s.bench.env);
  const auth = { authorization: `Bearer ${s.fixture.liveKey}` };
  const get = async (query: string) => {
    const res = await fetch(`${service.baseUrl}/v1/evidence?${query}`, { headers: auth });
    if (res.status !== 200) throw new Error(`evidence?${query}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown[]; meta: { nextCursor: string | null } };
  };
  try {
    // A cursor 20,000 events deep (200 pages of 100), reached once.
    let cursor = '';
    for (let i = 0; i < 200; i++) {
      const page = await get(`limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      cursor = page.meta.nextCursor ?? '';
    }
    const pages: Record<string, string> = {
      unfiltered: 'limit=50',
      region_FR: 'limit=50&region=FR',
      region_US_with_subdivisions: 'limit=50&region=US',
      region_US_CA: 'limit=50&region=US-CA',
      source_api: 'limit=50&source=api',
      purpose_analytics_granted: 'limit=50&purpose=analytics&decision=granted',
      deep_cursor: `limit=50&cursor=${encodeURIComponent(cursor)}`.replace('limit=50', 'limit=100'),
    };
    const figures: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(pages)) {
      await get(query);
      figures[name] = await sequentialLatency(RUNS, async () => {
        await get(query);
      });
    }
    const lookups = JSON.stringify({
      channelId: s.fixture.channelId,
      subjectIds: Array.from({ length: SUBJECTS }, (_, i) => subjectId(i)),
    });
    const lookup = async () => {
      const res = await fetch(`${service.baseUrl}/v1/consent-state/lookups`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: lookups,
      });
      if (res.status !== 200) throw new Error(`lookups: ${res.status} ${await res.text()}`);
    };
    await lookup();
    figures.lookups_100_subjects = await sequentialLatency(RUNS, lookup);
    return figures;
  } finally {
    await service.stop();
  }
}

const sides: Side[] = [];
if (flags.before) sides.push(await side('before', path.resolve(flags.before)));
sides.push(await side('after', ROOT));
// The sides take turns, round by round, so a change of the machine's load falls on both.
const results: Record<string, unknown[]> = {};
for (let round = 0; round < Number(flags.rounds); round++) {
  for (const s of sides) results[s.label] = [...(results[s.label] ?? []), await measure(s)];
}
console.log(JSON.stringify({ events: EVENTS, runs: RUNS, loadavg: os.loadavg(), results }, null, 2));
