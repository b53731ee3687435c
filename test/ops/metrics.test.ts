import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { webhookWorker } from '../webhooks/worker.ts';

const TOKEN = 'metrics-token-for-tests';
let t: TestApp;
let org: Tenant;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({
    env: {
      METRICS_TOKEN: TOKEN,
      RATE_LIMIT_PER_MINUTE: '5',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1',
      RATE_LIMIT_REDIS_PREFIX: `ops-metrics-${randomUUID()}`,
    },
  });
  org = await t.tenant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

async function scrape(): Promise<string> {
  const res = await t.http.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** The value of one sample line, e.g. `sample(text, 'http_requests_total{method="GET",…}')`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('needs the METRICS_TOKEN as a Bearer token: a 401 problem otherwise', async () => {
    expectProblemShape(await t.http.get('/metrics'), 401, 'authentication_required');
    const wrong = await t.http.get('/metrics', { headers: { authorization: 'Bearer nope' } });
    expectProblemShape(wrong, 401, 'authentication_required');
    // An API key is not the metrics token either.
    expectProblemShape(await t.http.get('/metrics', { key: org.testKey }), 401, 'authentication_required');
    await scrape();
  });

  it('is not in the OpenAPI document', async () => {
    const doc = await t.http.get('/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
  });

  it('counts requests by route template, method and status, with a latency histogram', async () => {
    const id = `ch_${'z'.repeat(20)}`;
    expect((await t.http.get(`/v1/channels/${id}`, { key: org.testKey })).status).toBe(404);
    expect((await t.http.get('/no/such/path/unlabelled-probe')).status).toBe(404);
    const text = await scrape();
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/channels/:id",status="404"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count{method="GET",route="/v1/channels/:id",status="404"}'),
    ).toBe(1);
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/channels/:id"',
    );
    // Raw URLs never become labels (a word, not digits, which a gauge's value could contain).
    expect(text).not.toContain(id);
    expect(text).not.toContain('unlabelled-probe');
  });

  it('counts rate-limit rejections by limit', async () => {
    const key = await org.key(['channels:read']);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await t.http.get('/v1/channels', { key: key.secret })).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const text = await scrape();
    expect(sample(text, 'consent_service_rate_limit_rejections_total{limit="api"}')).toBe(2);
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/channels",status="429"}')).toBe(2);
  });

  it('reports jobs by kind and status, and the age of the oldest due job, at scrape time', async () => {
    await t.store.tx((tx) => t.app.services.jobs.enqueue(tx, { kind: 'ops.test', payload: {} }));
    await t.store.tx((tx) => t.app.services.jobs.enqueue(tx, { kind: 'ops.test', payload: {} }));
    t.clock.advance(30_000);
    const text = await scrape();
    expect(sample(text, 'consent_service_jobs{kind="ops.test",status="queued"}')).toBe(2);
    expect(sample(text, 'consent_service_jobs{kind="ops.test",status="running"}')).toBe(0);
    expect(sample(text, 'consent_service_jobs{kind="ops.test",status="failed"}')).toBe(0);
    expect(sample(text, 'consent_service_jobs_oldest_queued_age_seconds{kind="ops.test"}')).toBeCloseTo(
      30,
      0,
    );
    expect(sample(text, 'consent_service_metrics_database_up')).toBe(1);
  });

  it('counts webhook attempts by outcome where they finish', async () => {
    const created = await t.http.post('/v1/webhook-destinations', {
      key: org.testKey,
      body: { url: receiver.url, eventTypes: ['channel.created'] },
    });
    expect(created.status, created.text).toBe(201);
    receiver.reply(() => ({ status: 500 }));
    const channel = await t.http.post('/v1/channels', {
      key: org.testKey,
      body: {
        name: 'Metrics',
        privacyPolicy: { url: 'https://x.example/p', version: '1', retentionDays: 30 },
      },
    });
    expect(channel.status, channel.text).toBe(201);
    const worker = webhookWorker(t);
    await worker.runDue();
    receiver.reply(() => ({ status: 204 }));
    t.clock.advance(5_000);
    await worker.runDue();
    expect(receiver.received).toHaveLength(2);
    const text = await scrape();
    expect(sample(text, 'consent_service_webhook_attempts_total{outcome="http_error"}')).toBe(1);
    expect(sample(text, 'consent_service_webhook_attempts_total{outcome="success"}')).toBe(1);
  });

  it('reports ledger seal lag, pool usage on PostgreSQL, and never an organization id, key id or secret', async () => {
    // An evidence event waiting 42 s to be sealed (queued as the evidence trigger would queue it).
    const recordedAt = new Date(t.clock.now().getTime() - 42_000).toISOString();
    await rawSql(t.store).execute(sql`
      insert into ledger_pending (organization_id, environment, event_id, recorded_at, leaf_hash)
      values ('org_metrics_lag', 'test', 'evt_metrics_lag', ${recordedAt}::timestamptz, 'x')`);
    const text = await scrape();
    await rawSql(t.store).execute(sql`delete from ledger_pending where event_id = 'evt_metrics_lag'`);
    expect(sample(text, 'consent_service_ledger_seal_lag_seconds')).toBeCloseTo(42, 0);
    if (t.store.kind === 'postgres') {
      expect(sample(text, 'consent_service_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'consent_service_db_pool_connections{state="waiting"}')).toBe(0);
    } else {
      expect(text).not.toContain('consent_service_db_pool_connections{');
    }
    expect(text).not.toContain(org.organizationId);
    expect(text).not.toMatch(/org_[A-Za-z0-9]{6}|key_[A-Za-z0-9]{6}|svc_(test|live)_|whsec_/);
    expect(text).not.toContain(TOKEN);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is open (the operator binds it to a private network)', async () => {
    const open = await startTestApp({ store: t.store });
    try {
      const res = await open.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('# TYPE http_requests_total counter');
    } finally {
      await open.close();
    }
  });
});
