/**
 * One organization floods GPP strings that stopped the shared decoder, while
 * another organization's site records valid GPP decisions. In one run, per side:
 *
 *   npx tsx bench/gpp-flood.ts [--before DIR] [--embedded] [--seconds 12] [--attack-rate 2] [--victim-rate 2]
 *
 * Sides: this checkout's service (`after`) and, with `--before`, another checkout's (e.g.
 * `git worktree add /tmp/gpp-before dac76cb && (cd /tmp/gpp-before && npm ci)`), each an API
 * replica on a fresh database (PostgreSQL by default, DATABASE_URL naming a database with "bench"
 * in its name; `--embedded` for the embedded store) set up by this checkout's code: two
 * organizations, each with a live GPP channel (gppCmpId 300) on https://shop.example.com.
 * Each side runs two phases of `--seconds`: `unloaded` (the victim's decisions only) and `flood`
 * (the same, while the attacker posts the 603-character tcfeuv2 string of 100 vendor ranges
 * 1..65535 to its own site, `--attack-rate` a second from one address). The victim posts valid GPP
 * decisions (usnat and tcfcav1 strings by @iabgpp/cmpapi's encoder) at `--victim-rate` a second,
 * open loop; `/healthz` is probed every 100 ms throughout. Reported per phase: the victim's answers
 * (201s of sent, other statuses), p50/p99/max latency, the attacker's statuses, and /healthz p50,
 * p99 and max. Written to bench/results/gpp-flood.json as well.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { bootstrapOrganization } from '../src/cli/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { createServices } from '../src/services.ts';
import { hostileTcfEuGpp, tcfCaGpp, USNAT } from '../test/helpers/gpp.ts';
import { startServiceAt } from './lib/service-at.ts';
import {
  type BenchStore,
  DEFAULT_DATABASE_URL,
  freshEmbedded,
  freshPostgres,
  SITE_ORIGIN,
} from './lib/setup.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    embedded: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '12' },
    'attack-rate': { type: 'string', default: '2' },
    'victim-rate': { type: 'string', default: '2' },
  },
});
const seconds = Number(flags.seconds);
const attackRate = Number(flags['attack-rate']);
const victimRate = Number(flags['victim-rate']);
const say = (line: string) => process.stderr.write(`gpp-flood: ${line}\n`);

interface GppSite {
  siteKey: string;
  configVersion: number;
}

/** Two organizations, each with a live GPP channel ready for decisions, made through the app's own routes. */
async function prepare(bench: BenchStore, dataDir: string): Promise<{ attacker: GppSite; victim: GppSite }> {
  const store = await bench.open();
  await runMigrations(store);
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' });
  const services = createServices({ store, clock: systemClock, config });
  const app = await buildApp({ config, store, clock: systemClock, services, logger: false });
  const site = async (name: string): Promise<GppSite> => {
    const org = await bootstrapOrganization(store, services, { name, ownerEmail: `${name}@example.com` });
    const call = async (url: string, payload: object) => {
      const headers = { authorization: `Bearer ${org.apiKeys.live}` };
      const res = await app.inject({ method: 'POST', url, payload, headers });
      if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
      return res.json().data;
    };
    const channel = await call('/v1/channels', {
      name,
      gppCmpId: 300,
      privacyPolicy: { url: `${SITE_ORIGIN}/privacy`, version: '2024-05', retentionDays: 365 },
    });
    await call(`/v1/channels/${channel.id}/purposes`, { key: 'analytics', name: 'Analytics' });
    await call(`/v1/channels/${channel.id}/origins`, { origin: SITE_ORIGIN });
    const res = await app.inject({
      method: 'GET',
      url: `/v1/channels/${channel.id}`,
      headers: { authorization: `Bearer ${org.apiKeys.live}` },
    });
    const { siteKey, configVersion } = res.json().data;
    return { siteKey, configVersion };
  };
  const attacker = await site('attacker');
  const victim = await site('victim');
  await app.close();
  await store.close();
  return { attacker, victim };
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
};
const countBy = (statuses: number[]) =>
  Object.fromEntries([...new Set(statuses)].sort().map((s) => [s, statuses.filter((x) => x === s).length]));

function post(baseUrl: string, site: GppSite, gppString: string) {
  return fetch(`${baseUrl}/v1/public/sites/${site.siteKey}/preferences`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
    body: JSON.stringify({
      subjectId: `sub-${crypto.randomUUID()}`,
      configVersion: site.configVersion,
      decisions: { analytics: 'granted' },
      gppString,
    }),
  });
}

/** Sends `request` `rate` times a second for `ms`, open loop: each one's status and latency. */
async function openLoop(rate: number, ms: number, request: (i: number) => Promise<Response>) {
  const results: Promise<{ status: number; ms: number }>[] = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < ms; i++) {
    const sent = performance.now();
    results.push(
      request(i).then(
        async (res) => {
          await res.arrayBuffer();
          return { status: res.status, ms: performance.now() - sent };
        },
        () => ({ status: 0, ms: performance.now() - sent }),
      ),
    );
    const nextAt = started + ((i + 1) * 1000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextAt - performance.now())));
  }
  return Promise.all(results);
}

async function phase(baseUrl: string, sites: { attacker: GppSite; victim: GppSite }, flood: boolean) {
  const ms = seconds * 1000;
  // A TCF Canada string, not an EU TCF one: the victim's channel has no TCF settings, and an EU TCF
  // section is held to them as a tcString is (a 422 here).
  const victimStrings = [USNAT, tcfCaGpp([1, 2, 3, 755, 800, 1001, 1002, 1003])];
  const hostile = hostileTcfEuGpp();
  let probing = true;
  const health: number[] = [];
  const probe = (async () => {
    while (probing) {
      const sent = performance.now();
      await fetch(`${baseUrl}/healthz`).then((res) => res.arrayBuffer());
      health.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const [victim, attacker] = await Promise.all([
    openLoop(victimRate, ms, (i) => post(baseUrl, sites.victim, victimStrings[i % 2])),
    flood ? openLoop(attackRate, ms, () => post(baseUrl, sites.attacker, hostile)) : Promise.resolve([]),
  ]);
  probing = false;
  await probe;
  const latencies = victim.map((r) => r.ms);
  return {
    victim: {
      sent: victim.length,
      answered201: victim.filter((r) => r.status === 201).length,
      statuses: countBy(victim.map((r) => r.status)),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: percentile(latencies, 100),
    },
    attacker: { sent: attacker.length, statuses: countBy(attacker.map((r) => r.status)) },
    healthz: {
      probes: health.length,
      p50: percentile(health, 50),
      p99: percentile(health, 99),
      max: percentile(health, 100),
    },
  };
}

async function side(name: string, root: string) {
  const dataDir = `/tmp/consent-gpp-flood-${name}`;
  fs.rmSync(dataDir, { recursive: true, force: true });
  const url = new URL(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  url.pathname = `/consent_gpp_flood_bench_${name}`;
  const bench = flags.embedded ? freshEmbedded(dataDir) : await freshPostgres(url.toString());
  const sites = await prepare(bench, dataDir);
  // The embedded store admits one process: the service runs both roles there.
  const service = flags.embedded
    ? await startServiceAt(root, bench.env, undefined, 'all')
    : await startServiceAt(root, { ...bench.env, DATA_DIR: dataDir });
  try {
    // Warm up: the first GPP string starts the decoder.
    await post(service.baseUrl, sites.victim, USNAT).then((res) => res.arrayBuffer());
    say(`${name}: unloaded`);
    const unloaded = await phase(service.baseUrl, sites, false);
    say(`${name}: flood`);
    const flood = await phase(service.baseUrl, sites, true);
    return { unloaded, flood };
  } finally {
    await service.stop();
  }
}

const results: Record<string, unknown> = {
  store: flags.embedded ? 'embedded' : 'postgres',
  seconds,
  attackRate,
  victimRate,
};
if (flags.before) results.before = await side('before', path.resolve(flags.before));
results.after = await side('after', process.cwd());
const out = JSON.stringify(results, null, 2);
process.stdout.write(`${out}\n`);
fs.mkdirSync('bench/results', { recursive: true });
fs.writeFileSync('bench/results/gpp-flood.json', `${out}\n`);
