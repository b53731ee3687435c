/**
 * `npx tsx bench/tcf-vendor-list.ts [--embedded]`: what the public vendor-list slice costs when
 * visitors (or anyone) ask for several vendor list versions, and what `/healthz` waits meanwhile.
 *
 * 1. Rotation: a TCF channel whose config versions used versions 100…105 of an IAB-sized list
 *    (1,000 vendors); its slices are asked for in turn, `?version=100…105`, sequentially. Reported:
 *    the service process's CPU per request (it runs in this process) after as many warm-up requests,
 *    the lists read from the database meanwhile, and the CPU per request of the newest version alone.
 * 2. A large list: version 106 of 15,500 vendors (about 15 MB of JSON) is stored, then a fresh
 *    service (its caches empty, as after a restart) gets 20 concurrent slice requests for it while
 *    `/healthz` is asked every 5 ms. Reported: the slowest and the median `/healthz` answer, and the
 *    time until all 20 slices were answered.
 *
 * PostgreSQL by default (DATABASE_URL, a database whose name contains "bench"; dropped and
 * recreated), or the embedded store with `--embedded`. Figures vary with the machine: compare runs
 * made one after the other.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { bootstrapOrganization } from '../src/cli/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import type { Store } from '../src/platform/db/store.ts';
import { createServices } from '../src/services.ts';
import { buildVendorList, serveVendorList, type TestVendor } from '../test/helpers/gvl.ts';
import { DEFAULT_DATABASE_URL, freshEmbedded, freshPostgres } from './lib/setup.ts';

const ROTATED = [100, 101, 102, 103, 104, 105];
const ROUNDS = 40;
const LARGE_VERSION = 106;
const CONCURRENT = 20;

function vendors(count: number, words = 0): TestVendor[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `Vendor ${i + 1} ${'lorem ipsum '.repeat(words)}`.trim(),
    purposes: [1, 2, 3, 4],
    legIntPurposes: [7, 9, 10],
    specialPurposes: [1, 2],
    features: [1, 3],
    dataDeclaration: [1, 2, 3, 4, 6],
  }));
}

async function main() {
  const embedded = process.argv.includes('--embedded');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gvl-'));
  const bench = embedded
    ? freshEmbedded(dataDir)
    : await freshPostgres(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const store: Store = await bench.open();
  await runMigrations(store);
  const gvl = await serveVendorList(buildVendorList({ version: ROTATED[0], vendors: vendors(1000) }));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    TCF_GVL_URL: gvl.url,
    TCF_GVL_FETCH_TIMEOUT_SECONDS: '120',
  });
  const quiet = { warn: () => {}, info: () => {} } as never;
  /**
   * One mirror run, tried again when the loopback fetch itself failed (`fetch failed`: a reused
   * keep-alive connection the server had just closed, seen here on both sides of a comparison).
   */
  const mirrorRun = async (services: ReturnType<typeof createServices>) => {
    for (let attempt = 1; ; attempt++) {
      const outcome = await services.tcf.mirror.run(quiet);
      const state = await services.tcf.mirrorState(store.db);
      if (outcome === 'fetched' || attempt === 3 || !/fetch failed/.test(state?.lastError ?? '')) {
        return outcome === 'fetched' ? outcome : `${outcome}: ${state?.lastError}`;
      }
      await store.tx((tx) => services.tcf.requestRefresh(tx));
    }
  };
  const services = createServices({ store, clock: systemClock, config });
  await mirrorRun(services);
  const org = await bootstrapOrganization(store, services, { name: 'Bench', ownerEmail: 'b@example.com' });
  const app = await buildApp({ config, store, clock: systemClock, services, logger: false });
  const key = org.apiKeys.live;
  const created = await app.inject({
    method: 'POST',
    url: '/v1/channels',
    headers: { authorization: `Bearer ${key}` },
    payload: {
      name: 'TCF',
      tcf: {
        cmpId: 300,
        vendorIds: Array.from({ length: 200 }, (_, i) => i * 5 + 1),
        publisherCountryCode: 'DE',
      },
    },
  });
  if (created.statusCode !== 201) throw new Error(created.body);
  const { siteKey } = created.json().data;
  // Each new version is adopted by the channel: a new config version made with it.
  const makeDue = () => store.tx((tx) => services.tcf.requestRefresh(tx));
  for (const version of ROTATED.slice(1)) {
    gvl.publish(buildVendorList({ version, vendors: vendors(1000) }));
    await makeDue();
    const outcome = await mirrorRun(services);
    if (outcome !== 'fetched') throw new Error(`version ${version}: ${outcome}`);
  }
  const slice = (version: number) =>
    app.inject({ method: 'GET', url: `/v1/public/sites/${siteKey}/tcf/vendor-list.json?version=${version}` });

  // 1. Rotation, after a warm-up of as many requests (the JIT, and the caches of whatever is cached).
  for (let round = 0; round < ROUNDS; round++) {
    for (const version of ROTATED) {
      const res = await slice(version);
      if (res.statusCode !== 200) throw new Error(`version ${version}: ${res.statusCode} ${res.body}`);
    }
  }
  const loads = async () => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^consent_service_tcf_vendor_list_loads_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
  };
  const loadsBefore = await loads();
  const before = process.cpuUsage();
  const started = performance.now();
  const answered = async (version: number) => {
    const res = await slice(version);
    if (res.statusCode !== 200) throw new Error(`version ${version}: ${res.statusCode}`);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const version of ROTATED) await answered(version);
  }
  const cpu = process.cpuUsage(before);
  const requests = ROUNDS * ROTATED.length;
  const cpuMs = (cpu.user + cpu.system) / 1000 / requests;
  const wallMs = (performance.now() - started) / requests;
  const rotationLoads = (await loads()) - loadsBefore;
  const single = process.cpuUsage();
  for (let i = 0; i < requests; i++) await answered(ROTATED.at(-1) as number);
  const singleCpu = process.cpuUsage(single);
  const singleMs = (singleCpu.user + singleCpu.system) / 1000 / requests;
  await app.close();

  // 2. A large list, loaded cold by concurrent requests.
  gvl.publish(buildVendorList({ version: LARGE_VERSION, vendors: vendors(15_500, 8) }));
  await makeDue();
  const outcome = await mirrorRun(services);
  if (outcome !== 'fetched') throw new Error(`version ${LARGE_VERSION}: ${outcome}`);
  const bytes = JSON.stringify(
    buildVendorList({ version: LARGE_VERSION, vendors: vendors(15_500, 8) }),
  ).length;
  const fresh = createServices({ store, clock: systemClock, config });
  const cold = await buildApp({ config, store, clock: systemClock, services: fresh, logger: false });
  await cold.listen({ port: 0, host: '127.0.0.1' });
  const address = cold.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const health: number[] = [];
  let done = false;
  const poll = (async () => {
    while (!done) {
      const t0 = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: CONCURRENT }, () =>
      fetch(`${base}/v1/public/sites/${siteKey}/tcf/vendor-list.json?version=${LARGE_VERSION}`).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
      ),
    ),
  );
  const allMs = performance.now() - t0;
  done = true;
  await poll;
  await cold.close();
  await store.close();
  await gvl.close();
  health.sort((a, b) => a - b);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  console.log(`store: ${bench.kind}`);
  console.log(
    `rotation of ${ROTATED.length} versions: ${ms(cpuMs)} CPU and ${ms(wallMs)} per request, ${rotationLoads} lists read from the database in ${requests} requests; one version only: ${ms(singleMs)} CPU per request`,
  );
  console.log(
    `large list (${(bytes / 1e6).toFixed(1)} MB, mirror run: ${outcome}): ${CONCURRENT} concurrent cold slices answered ${[...new Set(statuses)].join('/')} in ${ms(allMs)}; /healthz max ${ms(health.at(-1) ?? 0)}, median ${ms(health[Math.floor(health.length / 2)] ?? 0)} over ${health.length} probes`,
  );
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
