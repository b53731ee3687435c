/**
 * `POST /v1/consent-state/lookups` for 100 subjects, p50/p99, on PostgreSQL, on a
 * channel without TCF and on a TCF channel whose decisions carry TC strings, each subject with many
 * events (the old read walked them all for a TC string). With `--before <checkout>` the same
 * database is also served by that checkout, and the two are measured in alternating rounds.
 *
 *   npx tsx bench/lookups.ts [--before /path/to/main-checkout] [--events-per-subject 200]
 *
 * DATABASE_URL must name a database whose name contains "bench" (dropped and recreated).
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sequentialLatency } from './lib/load.ts';
import { ROOT } from './lib/processes.ts';
import { startServiceAt } from './lib/service-at.ts';
import { DEFAULT_DATABASE_URL, freshPostgres, prepare, SITE_ORIGIN } from './lib/setup.ts';
import { prepareTcf } from './lib/tcf.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    'events-per-subject': { type: 'string', default: '200' },
    runs: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});
const SUBJECTS = 100;
const perSubject = Number(values['events-per-subject']);
const runs = Number(values.runs);
const databaseUrl =
  process.env.DATABASE_URL || DEFAULT_DATABASE_URL.replace('consent_bench', 'consent_bench_lookups');
const dataDir = path.join(os.tmpdir(), `bench-lookups-${process.pid}`);

const bench = await freshPostgres(databaseUrl);
const fixture = await prepare(bench, dataDir);
const tcf = await prepareTcf(bench, fixture, dataDir);
const subjectId = (i: number) => `lookup-subject-${i}`;

// Each subject decides once through the service on both channels (their state is the service's own) …
const after = await startServiceAt(ROOT, bench.env);
for (const [siteKey, configVersion, tcString] of [
  [fixture.siteKey, fixture.configVersion, undefined],
  [tcf.siteKey, tcf.configVersion, tcf.tcString],
] as const) {
  for (let i = 0; i < SUBJECTS; i++) {
    const res = await fetch(`${after.baseUrl}/v1/public/sites/${siteKey}/preferences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
      body: JSON.stringify({
        subjectId: subjectId(i),
        decisions: { analytics: 'granted', marketing: 'granted' },
        configVersion,
        ...(tcString ? { tcString } : {}),
      }),
    });
    if (res.status !== 201) throw new Error(`preferences: ${res.status} ${await res.text()}`);
  }
}
// … then has `perSubject` older events, copied by SQL (as a long-lived subject would have).
const store = await bench.open();
await store.pool!.query(
  `insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
     config_version, policy_version, source, language, gpc, origin, user_agent, ip_prefix, recorded_at,
     receipt_hash, tc_string, tcf)
   select organization_id, id || '_' || g, environment, channel_id, subject_pseudonym, decisions,
     config_version, policy_version, source, language, gpc, origin, user_agent, ip_prefix,
     recorded_at - make_interval(secs => g), receipt_hash, tc_string, tcf
   from evidence_events, generate_series(1, $2::int) g where organization_id = $1`,
  [fixture.organizationId, perSubject],
);
const tcfChannel = (await store.pool!.query('select id from channels where site_key = $1', [tcf.siteKey]))
  .rows[0].id as string;
await store.pool!.query('analyze');
await store.close();

const body = (channelId: string) =>
  JSON.stringify({ channelId, subjectIds: Array.from({ length: SUBJECTS }, (_, i) => subjectId(i)) });
async function measure(baseUrl: string, channelId: string) {
  const payload = body(channelId);
  return sequentialLatency(runs, async () => {
    const res = await fetch(`${baseUrl}/v1/consent-state/lookups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fixture.liveKey}` },
      body: payload,
    });
    const json = (await res.json()) as {
      data: Array<{ state: { tcString: string | null; tcStringRecorded?: string | null } | null }>;
    };
    if (res.status !== 200 || json.data.some((entry) => entry.state === null))
      throw new Error('lookup failed');
    const expected = channelId === tcfChannel ? tcf.tcString : null;
    // The recorded string; a side from before tcStringRecorded existed gave it as tcString.
    const recorded = (state: { tcString: string | null; tcStringRecorded?: string | null } | null) =>
      state?.tcStringRecorded === undefined ? state?.tcString : state.tcStringRecorded;
    if (json.data.some((entry) => recorded(entry.state) !== expected)) throw new Error('wrong tcString');
  });
}

const sides: Array<[string, string]> = [['after', ROOT]];
if (values.before) sides.unshift(['before', path.resolve(values.before)]);
await after.stop();
const results: Record<string, unknown[]> = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, root] of sides) {
    const service = await startServiceAt(root, bench.env);
    try {
      await measure(service.baseUrl, fixture.channelId); // warm-up: caches, prepared statements
      const plain = await measure(service.baseUrl, fixture.channelId);
      const withTcf = await measure(service.baseUrl, tcfChannel);
      results[name] = [...(results[name] ?? []), { round, plain, tcf: withTcf }];
    } finally {
      await service.stop();
    }
  }
}
console.log(
  JSON.stringify(
    { subjects: SUBJECTS, eventsPerSubject: perSubject + 1, runs, databaseUrl: bench.kind, results },
    null,
    2,
  ),
);
