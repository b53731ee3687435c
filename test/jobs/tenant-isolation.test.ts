import net, { type AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/platform/db/rows.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { LOCAL_WEBHOOKS_ENV } from '../helpers/webhooks.ts';
import { browserSkipReason } from '../sdk/harness.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';

/**
 * The real worker, every kind registered, polling as in production: one organization floods it
 * with webhook deliveries to a destination that accepts connections and never answers (each
 * attempt holds a slot for its whole time limit) and, where Chromium is installed, with scans of
 * a page that never loads. Another organization's evidence is still sealed, and its webhook still
 * delivered, while the flood holds its slots and most of it is still queued. Order is asserted,
 * not time: the numbers printed are for the record.
 */

const FLOOD_DELIVERIES = 16;
const FLOOD_SCANS = browserSkipReason === null ? 2 : 0;

let t: TestApp;
let silent: net.Server;
const held = new Set<net.Socket>();
let silentOrigin: string;
let receiver: Receiver;
let flood: Tenant;
let other: Tenant;

beforeAll(async () => {
  silent = net.createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentOrigin = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  receiver = await startReceiver();
  t = await startTestApp({
    env: {
      ...SITES_TEST_ENV,
      ...LOCAL_WEBHOOKS_ENV,
      SCAN_ALLOW_PRIVATE_TARGETS: 'true',
      SCAN_PAGE_TIMEOUT_SECONDS: '5',
    },
  });
  flood = await t.tenant();
  other = await t.tenant();
}, 120_000);

afterAll(async () => {
  // Attempts and page loads waiting on the silent listener end at once; then the worker stops.
  for (const socket of held) socket.destroy();
  await t?.worker.stop(5_000);
  silent?.close();
  await receiver?.close();
  await t?.close();
});

/** Queued jobs of the organization that are due and were never attempted (the flood still waiting). */
async function dueQueued(organizationId: string): Promise<number> {
  const result = await rawSql(t.store).execute(sql`
    select count(*)::int as n from jobs
    where organization_id = ${organizationId} and status = 'queued' and attempts = 0
      and run_at <= ${t.clock.now()}`);
  return rowsOf<{ n: number }>(result)[0].n;
}

async function until(what: string, check: () => Promise<boolean>, limitMs = 120_000): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}

describe('one organization’s flood of slow jobs', () => {
  it('does not hold another organization’s sealing and webhooks', async () => {
    // The flood, queued first.
    const floodSite = await createReadySite(t, flood.testKey);
    const destination = await t.http.post('/v1/webhook-destinations', {
      key: flood.testKey,
      body: { url: `${silentOrigin}/hook`, eventTypes: ['consent.recorded'] },
    });
    expect(destination.status, destination.text).toBe(201);
    for (let n = 0; n < FLOOD_DELIVERIES; n++) await recordConsent(t, floodSite);
    for (let n = 0; n < FLOOD_SCANS; n++) {
      const channel = await t.http.post('/v1/channels', {
        key: flood.testKey,
        body: { name: `Never loads ${n}` },
      });
      expect(channel.status, channel.text).toBe(201);
      const id = channel.body.data.id;
      const origin = await t.http.post(`/v1/channels/${id}/origins`, {
        key: flood.testKey,
        body: { origin: silentOrigin },
      });
      expect(origin.status, origin.text).toBe(201);
      const scan = await t.http.post(`/v1/channels/${id}/scans`, { key: flood.testKey, body: {} });
      expect(scan.status, scan.text).toBe(202);
    }
    // Then the other organization: one decision to seal, one webhook to deliver.
    t.clock.advance(1_000);
    const otherSite = await createReadySite(t, other.testKey);
    const hook = await t.http.post('/v1/webhook-destinations', {
      key: other.testKey,
      body: { url: receiver.url, eventTypes: ['consent.recorded'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const decision = await recordConsent(t, otherSite);
    t.clock.advance(1_000);
    expect(await dueQueued(flood.organizationId)).toBe(FLOOD_DELIVERIES + FLOOD_SCANS);

    await t.worker.start();
    const sealedAfter = await until('the other organization’s evidence sealed', async () => {
      const proof = await t.http.get(`/v1/evidence/${decision.id}/proof`, { key: other.testKey });
      return proof.status === 200;
    });
    const floodWaitingAtSeal = await dueQueued(flood.organizationId);
    const deliveredAfter = await until('the other organization’s webhook delivered', async () =>
      receiver.received.some((r) => r.body.includes(decision.id)),
    );
    const floodWaitingAtDelivery = await dueQueued(flood.organizationId);
    console.log(
      `With ${FLOOD_DELIVERIES} deliveries to a silent destination and ${FLOOD_SCANS} scans of a page ` +
        `that never loads queued first: the other organization's evidence sealed ` +
        `${Math.round(sealedAfter)} ms after the worker started (${floodWaitingAtSeal} flood jobs not yet ` +
        `attempted), its webhook delivered ${Math.round(sealedAfter + deliveredAfter)} ms after ` +
        `(${floodWaitingAtDelivery} not yet attempted).`,
    );
    // Neither waited for the flood to drain: most of it was still queued.
    expect(floodWaitingAtSeal).toBeGreaterThan(0);
    expect(floodWaitingAtDelivery).toBeGreaterThan(0);
    // The flood held slots meanwhile: its attempts were under way, not refused.
    const running = await rawSql(t.store).execute(
      sql`select count(*)::int as n from jobs
        where organization_id = ${flood.organizationId} and status = 'running'`,
    );
    expect(rowsOf<{ n: number }>(running)[0].n).toBeGreaterThan(0);
  }, 300_000);
});
