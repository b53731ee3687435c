/**
 * The measurement: what a walk of sdk.js over many visitor regions costs the service's
 * memory and CPU, for one site and for two, in one run on PostgreSQL:
 *
 *   npx tsx bench/sdk-region-walk.ts [--before DIR] [--pairs 1000] [--sites 1,2] [--concurrency 8]
 *
 * The service trusts geo headers (GEO_COUNTRY_HEADER, GEO_SUBDIVISION_HEADER, as behind a CDN). The
 * walk takes `--pairs` valid (country, subdivision) pairs, a few of each country in turn, and asks
 * each site for sdk.js once per pair and representation: brotli, gzip and as it is (1,000 pairs:
 * 3,000 requests a site). Each side (this checkout, `after`, and optionally `--before`, another
 * checkout such as a worktree of an older commit with its own node_modules) runs once per site
 * count in a fresh process: RSS, heap and external (Buffer) memory are read from its /metrics before
 * and after the walk, CPU from its process tree (/proc); the figures are deltas over the walk. RSS
 * is read as the walk leaves it; heap and external (`retainedMb`, their sum) after full garbage
 * collections (the service runs with --expose-gc and children/gc-on-signal.mjs), so they are what
 * the service keeps. Then the walk runs again on the same process (a second visit of every
 * region): a cache that holds the walk answers it without compressing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SUBDIVISION_CODES } from '../src/modules/regions/iso-3166-codes.ts';
import { cpuSecondsOfTree } from './lib/cpu.ts';
import { startServiceAt } from './lib/service-at.ts';
import { DEFAULT_DATABASE_URL, freshPostgres, prepare, SITE_ORIGIN } from './lib/setup.ts';

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    pairs: { type: 'string', default: '1000' },
    sites: { type: 'string', default: '1,2' },
    concurrency: { type: 'string', default: '8' },
  },
});
const say = (line: string) => process.stderr.write(`sdk-region-walk: ${line}\n`);
const GEO = { GEO_COUNTRY_HEADER: 'X-Geo-Country', GEO_SUBDIVISION_HEADER: 'X-Geo-Subdivision' };
const ENCODINGS = ['gzip, deflate, br', 'gzip', 'identity'];

/** `count` valid pairs, round robin over the countries (a CDN's traffic spans many of them). */
function regionPairs(count: number): Array<[string, string]> {
  const byCountry = SUBDIVISION_CODES.map((line) => {
    const [country, codes] = line.split(':');
    return codes.split(' ').map((code) => [country, code] as [string, string]);
  });
  const pairs: Array<[string, string]> = [];
  for (let i = 0; pairs.length < count; i++) {
    const before = pairs.length;
    for (const codes of byCountry) if (i < codes.length && pairs.length < count) pairs.push(codes[i]);
    if (pairs.length === before) throw new Error(`only ${pairs.length} subdivisions exist`);
  }
  return pairs;
}

const url =
  process.env.DATABASE_URL || DEFAULT_DATABASE_URL.replace('consent_bench', 'consent_sdkwalk_bench');
const bench = await freshPostgres(url);
const fixture = await prepare(bench, '/tmp/consent-sdkwalk-bench');
const pairs = regionPairs(Number(flags.pairs));
const siteCounts = flags.sites!.split(',').map(Number);

/** A second site of the fixture's organization, made as the first is, through the running service. */
async function secondSite(baseUrl: string): Promise<string> {
  const call = async (path: string, body: object) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.liveKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string; siteKey: string } }).data;
  };
  const channel = await call('/v1/channels', {
    name: 'Second shop',
    privacyPolicy: { url: 'https://shop.example.com/privacy', version: '2024-05', retentionDays: 365 },
  });
  for (const purpose of [
    { key: 'necessary', name: 'Strictly necessary', required: true },
    { key: 'analytics', name: 'Analytics', consentModeSignals: ['analytics_storage'] },
    { key: 'marketing', name: 'Marketing', gpcOptOut: true, consentModeSignals: ['ad_storage'] },
  ])
    await call(`/v1/channels/${channel.id}/purposes`, purpose);
  await call(`/v1/channels/${channel.id}/origins`, { origin: SITE_ORIGIN });
  return channel.siteKey;
}
let secondSiteKey: string | null = null;

/** Figures of the service's /metrics (prom-client's process and Node gauges, and ours if present). */
async function gauges(baseUrl: string, pid: number): Promise<Record<string, number>> {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
  };
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return {
    rss,
    heap: read('nodejs_heap_size_used_bytes'),
    external: read('nodejs_external_memory_bytes'),
    cacheBytes: read('consent_service_sdk_cache_bytes'),
    compressions: sum('consent_service_sdk_compressions_total'),
  };
}

/** The walk: every site, pair and representation once, `concurrency` requests in flight. */
async function walk(baseUrl: string, siteKeys: string[]): Promise<{ requests: number; failed: number }> {
  const requests = siteKeys.flatMap((siteKey) =>
    pairs.flatMap(([country, subdivision]) =>
      ENCODINGS.map((encoding) => ({ siteKey, country, subdivision, encoding })),
    ),
  );
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < requests.length) {
      const r = requests[next++];
      const res = await fetch(`${baseUrl}/v1/public/sites/${r.siteKey}/sdk.js`, {
        headers: {
          'accept-encoding': r.encoding,
          'x-geo-country': r.country,
          'x-geo-subdivision': r.subdivision,
        },
      });
      await res.arrayBuffer();
      if (res.status !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: Number(flags.concurrency) }, worker));
  return { requests: requests.length, failed };
}

const mb = (bytes: number) => Number((bytes / 1e6).toFixed(1));
const sides = [
  ...(flags.before ? [{ name: 'before', root: flags.before }] : []),
  { name: 'after', root: process.cwd() },
];
const report: Record<string, Record<string, unknown>> = {};
for (const sites of siteCounts) {
  for (const side of sides) {
    const service = await startServiceAt(side.root, { ...bench.env, ...GEO }, undefined, 'api', [
      '--expose-gc',
      '--import',
      path.resolve('bench/children/gc-on-signal.mjs'),
    ]);
    try {
      if (sites > 1 && secondSiteKey === null) secondSiteKey = await secondSite(service.baseUrl);
      const siteKeys = [fixture.siteKey, secondSiteKey].slice(0, sites) as string[];
      // Warm: the bundle read and compressed, each site loaded, before the first figures.
      for (const siteKey of siteKeys)
        for (const encoding of ENCODINGS)
          await fetch(`${service.baseUrl}/v1/public/sites/${siteKey}/sdk.js`, {
            headers: { 'accept-encoding': encoding },
          }).then((res) => res.arrayBuffer());
      const pid = service.process.pid as number;
      const start = await gauges(service.baseUrl, pid);
      const cpu0 = cpuSecondsOfTree(pid);
      const t0 = Date.now();
      const first = await walk(service.baseUrl, siteKeys);
      const cpu1 = cpuSecondsOfTree(pid);
      const t1 = Date.now();
      const mid = await gauges(service.baseUrl, pid);
      const again = await walk(service.baseUrl, siteKeys);
      const cpu2 = cpuSecondsOfTree(pid);
      const end = await gauges(service.baseUrl, pid);
      const row = {
        requests: first.requests,
        failed: first.failed + again.failed,
        rssMb: mb(mid.rss - start.rss),
        heapMb: mb(mid.heap - start.heap),
        externalMb: mb(mid.external - start.external),
        retainedMb: mb(mid.heap + mid.external - start.heap - start.external),
        cpuSeconds: Number((cpu1 - cpu0).toFixed(2)),
        wallSeconds: Number(((t1 - t0) / 1000).toFixed(2)),
        againCpuSeconds: Number((cpu2 - cpu1).toFixed(2)),
        againRssMb: mb(end.rss - start.rss),
        againRetainedMb: mb(end.heap + end.external - start.heap - start.external),
        ...(Number.isNaN(end.cacheBytes)
          ? {}
          : {
              cacheMb: mb(end.cacheBytes),
              compressions: end.compressions - start.compressions,
            }),
      };
      report[`${sites} site${sites > 1 ? 's' : ''}`] ??= {};
      report[`${sites} site${sites > 1 ? 's' : ''}`][side.name] = row;
      say(`${sites} site(s), ${side.name}: ${JSON.stringify(row)}`);
    } finally {
      await service.stop();
    }
  }
}
process.stdout.write(`${JSON.stringify({ pairs: pairs.length, report }, null, 2)}\n`);
