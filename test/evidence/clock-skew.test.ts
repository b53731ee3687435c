import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * A server whose clock is far from the database's (docs/decisions/evidence-times.md). The manual clock
 * is the service's; the database keeps the real time, as a replica with a broken clock beside a right
 * database and worker does. Decisions are refused (503 clock_skew, which the SDK retries) rather than
 * recorded at a wrong time, and the retention purge does not run by a clock ahead of the database's.
 */
const DAY = 86_400_000;
const EIGHTEEN_MONTHS = 548 * DAY;
const TOKEN = 'clock-skew-metrics-token';
const ENV = { ...SITES_TEST_ENV, CLOCK_SKEW_MAX_SECONDS: '60', METRICS_TOKEN: TOKEN };

/** The live channel's decisions are kept a year: 18 months back is past it, and a purge drops it at once. */
async function liveSite(t: TestApp, tenant: Tenant): Promise<ReadySite> {
  return createReadySite(t, tenant.liveKey, { retentionDays: 365 });
}

async function clockOffsetGauge(t: TestApp): Promise<number> {
  const res = await t.http.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  const line = /^consent_service_clock_offset_seconds (\S+)$/m.exec(res.text);
  return Number(line?.[1]);
}

/** The service's log lines, as JSON. */
function logLines() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe('a service clock behind the database from its start', () => {
  let t: TestApp;
  let tenant: Tenant;
  let site: ReadySite;
  const log = logLines();

  beforeAll(async () => {
    // The channel is made with the clock right, then the service starts again 18 months behind.
    const setup = await startTestApp({ env: ENV });
    tenant = await setup.tenant();
    site = await liveSite(setup, tenant);
    await setup.app.close();
    t = await startTestApp({
      env: { ...ENV, LOG_LEVEL: 'info' },
      store: setup.store,
      clockStart: new Date(Date.now() - EIGHTEEN_MONTHS),
      logger: { stream: log.stream },
    });
  });
  afterAll(async () => {
    await t?.close();
    await t?.store.close();
  });

  it('is measured at start: the first decision is refused with 503 clock_skew, none is stored', async () => {
    t.clock.set(new Date(Date.now() - EIGHTEEN_MONTHS));
    const res = await postPreferences(t, site.siteKey, preferencesBody(site));
    const problem = expectProblemShape(res, 503, 'clock_skew');
    expect(problem.detail).toMatch(/behind the database's/);
    expect(problem.detail).toMatch(/CLOCK_SKEW_MAX_SECONDS/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const offset = await clockOffsetGauge(t);
    expect(Math.abs(offset - EIGHTEEN_MONTHS / 1000)).toBeLessThan(120);
    const listed = await t.http.get(`/v1/evidence?channelId=${site.channelId}`, { key: tenant.liveKey });
    expect(listed.body.data).toEqual([]);
    // One warning for the operator, from the measurement at start, with the offset it found.
    const warnings = log.lines.filter((l) => String(l.msg).includes("clock is too far from the database's"));
    expect(warnings).toHaveLength(1);
    expect(Math.abs(Number(warnings[0].offsetSeconds) - EIGHTEEN_MONTHS / 1000)).toBeLessThan(120);
  });
});

describe('a service clock that is set back while it runs', () => {
  let t: TestApp;
  let tenant: Tenant;
  let site: ReadySite;

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    tenant = await t.tenant();
    site = await liveSite(t, tenant);
  });
  afterAll(() => t?.close());

  it('refuses at once, without waiting for the next measurement; the same request is recorded once the clock is right, and the purge keeps it', async () => {
    const body = preferencesBody(site);
    const key = 'decision-while-the-clock-was-wrong';
    t.clock.set(new Date(Date.now() - EIGHTEEN_MONTHS));
    expectProblemShape(
      await postPreferences(t, site.siteKey, body, { idempotencyKey: key }),
      503,
      'clock_skew',
    );

    t.clock.set(new Date());
    const res = await postPreferences(t, site.siteKey, body, { idempotencyKey: key });
    expect(res.status, res.text).toBe(201);
    const recordedAt = Date.parse(res.body.data.recordedAt);
    expect(Math.abs(recordedAt - Date.now())).toBeLessThan(60_000);

    // The worker's purge, with the right clock: the decision is within its retention and stays.
    await t.app.services.evidence.purgeExpired();
    const read = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.liveKey });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.recordedAt).toBe(res.body.data.recordedAt);
  });

  it('does not purge by a clock ahead of the database: evidence within its retention stays', async () => {
    t.clock.set(new Date());
    const res = await postPreferences(t, site.siteKey, preferencesBody(site));
    expect(res.status, res.text).toBe(201);
    // Two years ahead, every live decision of a channel that keeps them a year would look expired.
    t.clock.set(new Date(Date.now() + 2 * 365 * DAY));
    await expect(t.app.services.evidence.purgeExpired()).rejects.toMatchObject({ code: 'clock_skew' });
    t.clock.set(new Date());
    const read = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.liveKey });
    expect(read.status, read.text).toBe(200);
  });

  it('accepts a clock within the bound either way', async () => {
    for (const offset of [-30_000, 30_000]) {
      t.clock.set(new Date(Date.now() + offset));
      const res = await postPreferences(t, site.siteKey, preferencesBody(site));
      expect(res.status, `${offset} ms: ${res.text}`).toBe(201);
    }
  });
});
