import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { bootstrapOrganization } from '../../src/cli/bootstrap.ts';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { createEmbeddedStore, createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { createServices } from '../../src/services.ts';

export const SITE_ORIGIN = 'https://shop.example.com';
/** Channels of the organization: more than one page of `GET /v1/channels` (20). */
const CHANNEL_COUNT = 25;

/** Where the bench's data lives, and the environment a child needs to open the same store. */
export interface BenchStore {
  kind: 'postgres' | 'embedded';
  /** DATABASE_URL (postgres) or DATA_DIR (embedded) for children. */
  env: Record<string, string>;
  /** Embedded only: a copy of the data directory made after setup, for baseline servers. */
  baselineDataDir?: string;
  open(): Promise<Store>;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/consent_bench';

/**
 * A fresh database on the server of DATABASE_URL. Its name must contain "bench": the bench drops
 * and recreates it, so it must never be a database anyone keeps data in.
 */
export async function freshPostgres(databaseUrl: string): Promise<BenchStore> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  if (!/bench/.test(name)) {
    throw new Error(
      `DATABASE_URL names database "${name}": the bench drops and recreates its database, so its name must contain "bench"`,
    );
  }
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  return {
    kind: 'postgres',
    env: { DATABASE_URL: databaseUrl },
    open: async () => createPostgresStore(databaseUrl),
  };
}

export function freshEmbedded(dataDir: string): BenchStore {
  const pgdata = path.join(dataDir, 'pgdata');
  return {
    kind: 'embedded',
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    baselineDataDir: path.join(dataDir, 'baseline-pgdata'),
    open: () => createEmbeddedStore({ dataDir: pgdata }),
  };
}

export interface Fixture {
  organizationId: string;
  environment: 'live';
  liveKey: string;
  siteKey: string;
  channelId: string;
  configVersion: number;
}

/**
 * Migrates, bootstraps an organization and makes its site ready through the app's own routes
 * (in-process, before any server runs: the embedded store admits one process at a time).
 * Everything is in the live environment, whose evidence is kept for the channel's retention.
 */
export async function prepare(bench: BenchStore, dataDir: string): Promise<Fixture> {
  const store = await bench.open();
  await runMigrations(store);
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' });
  const services = createServices({ store, clock: systemClock, config });
  const org = await bootstrapOrganization(store, services, {
    name: 'Bench',
    ownerEmail: 'bench@example.com',
  });
  const app = await buildApp({ config, store, clock: systemClock, services, logger: false });
  const key = org.apiKeys.live;
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, payload, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  let channel: any;
  for (let i = 0; i < CHANNEL_COUNT; i++) {
    channel = await call('POST', '/v1/channels', {
      name: `Shop ${i}`,
      privacyPolicy: { url: 'https://shop.example.com/privacy', version: '2024-05', retentionDays: 365 },
    });
  }
  const purposes = [
    { key: 'necessary', name: 'Strictly necessary', required: true },
    { key: 'analytics', name: 'Analytics', consentModeSignals: ['analytics_storage'] },
    { key: 'marketing', name: 'Marketing', gpcOptOut: true, consentModeSignals: ['ad_storage'] },
  ];
  for (const purpose of purposes) await call('POST', `/v1/channels/${channel.id}/purposes`, purpose);
  await call('POST', `/v1/channels/${channel.id}/origins`, { origin: SITE_ORIGIN });
  const current = await call('GET', `/v1/channels/${channel.id}`);
  await app.close();
  await store.close();
  if (bench.baselineDataDir) {
    fs.cpSync(path.join(dataDir, 'pgdata'), bench.baselineDataDir, { recursive: true });
  }
  return {
    organizationId: org.organization.id,
    environment: 'live',
    liveKey: key,
    siteKey: current.siteKey,
    channelId: current.id,
    configVersion: current.configVersion,
  };
}

/**
 * Bulk-loads `count` evidence events of the fixture's channel with one `INSERT … SELECT
 * generate_series` per chunk (the ledger trigger queues each for sealing, as for real events).
 * One per second back from now, so they stay inside the channel's 365-day retention.
 */
export async function seedEvidence(bench: BenchStore, fixture: Fixture, count: number, chunk = 200_000) {
  const store = await bench.open();
  const query = (text: string, params: unknown[]) =>
    store.pool ? store.pool.query(text, params) : store.pglite!.query(text, params);
  const started = Date.now();
  // The live side has no DEFAULT partition: the months the events fall in are made first, as the
  // hourly job would have made them ahead while they were recorded.
  await query(`select evidence_partitions_ensure('live', now() - make_interval(secs => $1::float8), now())`, [
    count,
  ]);
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    await query(
      `insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
         config_version, policy_version, source, language, gpc, origin, user_agent, ip_prefix, outcome, recorded_at, receipt_hash)
       select $1, 'evt_bench' || lpad(g::text, 12, '0'), 'live', $2,
         'psn_' || encode(sha256(convert_to('s' || g, 'UTF8')), 'hex'),
         '{"necessary":"granted","analytics":"granted","marketing":"denied"}'::jsonb,
         $3, '2024-05', 'banner', 'en', false, '${SITE_ORIGIN}', 'Mozilla/5.0 (bench)', '203.0.113.0/24', 'custom',
         date_trunc('second', now()) - make_interval(secs => ($5::int - g)::float8),
         encode(sha256(convert_to('r' || g, 'UTF8')), 'hex')
       from generate_series($4::int, $6::int) g`,
      [fixture.organizationId, fixture.channelId, fixture.configVersion, from, count, to],
    );
  }
  await query('analyze evidence_events', []);
  const seconds = (Date.now() - started) / 1000;
  await store.close();
  return { rows: count, seconds, rowsPerSec: count / seconds };
}
