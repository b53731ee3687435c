/**
 * Prepares the embedded data directory of bench/tenants.ts with the code of one checkout (its own
 * migrations and routes, so a --before checkout gets a store it can open):
 *
 *   tsx bench/children/tenants-prepare.ts <checkout root> <DATA_DIR> <regions> <keys>
 *
 * Two organizations. The heavy one has a live channel whose analytics aggregates hold a whole year
 * of days for `regions` regions (every shard, two purposes), written straight into the aggregate
 * tables, and `keys` API keys holding only evidence:read. The other has a live site ready for
 * visitors' decisions (purposes, an origin). Prints one JSON line: what the bench needs.
 */
import path from 'node:path';

const [root, dataDir, regionsArg, keysArg] = process.argv.slice(2);
const from = (file: string) => import(path.join(path.resolve(root), file));
const { buildApp } = await from('src/app.ts');
const { bootstrapOrganization } = await from('src/cli/bootstrap.ts');
const { loadConfig } = await from('src/config.ts');
const { systemClock } = await from('src/platform/clock.ts');
const { runMigrations } = await from('src/platform/db/migrate.ts');
const { createEmbeddedStore } = await from('src/platform/db/store.ts');
const { createServices } = await from('src/services.ts');

const SITE_ORIGIN = 'https://shop.example.com';
const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'pgdata') });
await runMigrations(store);
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '1000000',
  ORG_RATE_LIMIT_PER_MINUTE: '1000000',
});
const services = createServices({ store, clock: systemClock, config });
const app = await buildApp({ config, store, clock: systemClock, services, logger: false });

async function organization(name: string) {
  const org = await bootstrapOrganization(store, services, { name, ownerEmail: `${name}@example.com` });
  const key = org.apiKeys.live as string;
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, payload, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const channel = await call('POST', '/v1/channels', {
    name: `${name} shop`,
    privacyPolicy: { url: 'https://shop.example.com/privacy', version: '2024-05', retentionDays: 365 },
  });
  for (const purpose of [
    { key: 'necessary', name: 'Strictly necessary', required: true },
    { key: 'analytics', name: 'Analytics' },
    { key: 'marketing', name: 'Marketing' },
  ])
    await call('POST', `/v1/channels/${channel.id}/purposes`, purpose);
  await call('POST', `/v1/channels/${channel.id}/origins`, { origin: SITE_ORIGIN });
  const current = await call('GET', `/v1/channels/${channel.id}`);
  return { organizationId: org.organization.id as string, call, channel: current };
}

const heavy = await organization('heavy');
const readers: string[] = [];
for (let i = 0; i < Number(keysArg); i++) {
  const issued = await heavy.call('POST', '/v1/api-keys', { name: `reader ${i}`, scopes: ['evidence:read'] });
  readers.push(issued.secret);
}
const victim = await organization('victim');

// A year of days, ending today, for every region, shard and purpose: what a busy channel seen from
// many regions holds after a year.
const year = `(select (current_date - n) as d from generate_series(0, 365) n) y`;
const regions = `(select 'R' || lpad(r::text, 4, '0') as region from generate_series(1, ${Number(regionsArg)}) r) g`;
const pglite = store.pglite;
await pglite.query(
  `insert into consent_analytics_daily (organization_id, environment, channel_id, day, region, regime, config_version,
     shard, impressions, decisions, accept_all, reject_all, custom, gpc)
   select $1, 'live', $2, y.d, g.region, 'opt-in', $3, s, 10, 5, 2, 2, 1, 0
   from ${year}, ${regions}, generate_series(0, 15) s`,
  [heavy.organizationId, heavy.channel.id, heavy.channel.configVersion],
);
await pglite.query(
  `insert into consent_analytics_purposes (organization_id, environment, channel_id, day, region, regime, config_version,
     purpose_key, shard, granted, denied)
   select $1, 'live', $2, y.d, g.region, 'opt-in', $3, p, s, 3, 2
   from ${year}, ${regions}, unnest(array['analytics', 'marketing']) p, generate_series(0, 15) s`,
  [heavy.organizationId, heavy.channel.id, heavy.channel.configVersion],
);
await pglite.query('analyze consent_analytics_daily');
await pglite.query('analyze consent_analytics_purposes');
await app.close();
await store.close();
process.stdout.write(
  `${JSON.stringify({
    heavy: { channelId: heavy.channel.id, keys: readers },
    victim: { siteKey: victim.channel.siteKey, configVersion: victim.channel.configVersion },
    origin: SITE_ORIGIN,
  })}\n`,
);
