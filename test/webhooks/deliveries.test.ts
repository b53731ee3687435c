import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { type Receiver, startReceiver, verifies } from './receiver.ts';
import { webhookWorker } from './worker.ts';

/** Deliveries over real HTTP to a real receiver on 127.0.0.1, on a short retry schedule (1 s ×3). */
let t: TestApp;
let receiver: Receiver;
let org: Tenant;
let worker: ReturnType<typeof webhookWorker>;
const env = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  RATE_LIMIT_PER_MINUTE: '100000',
};

beforeAll(async () => {
  t = await startTestApp({ env });
  worker = webhookWorker(t);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  org = await t.tenant();
  // The worker runs every due attempt of the store: let earlier tests' retries finish before counting.
  receiver.reply(() => ({ status: 200 }));
  t.clock.advance(86_400_000);
  await worker.runDue();
  receiver.received.length = 0;
});

async function destination(body: Record<string, unknown> = {}, key = org.testKey) {
  const res = await t.http.post('/v1/webhook-destinations', { key, body: { url: receiver.url, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; secret: string; status: string };
}

/** A channel.created event of `org`. */
async function createChannel(key = org.testKey) {
  const res = await t.http.post('/v1/channels', { key, body: { name: 'Shop' } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string };
}

async function deliveries(query = '') {
  const res = await t.http.get(`/v1/webhook-deliveries${query}`, { key: org.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
}

async function delivery(id: string) {
  const res = await t.http.get(`/v1/webhook-deliveries/${id}`, { key: org.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Moves the clock and runs whatever became due. */
async function advanceAndRun(ms: number) {
  t.clock.advance(ms);
  await worker.runDue();
}

describe('webhook deliveries', () => {
  it('signs a delivery per Standard Webhooks (checked independently) with the event as payload', async () => {
    const dest = await destination();
    const channel = await createChannel();
    const [pending] = await deliveries();
    expect(pending).toMatchObject({
      destinationId: dest.id,
      eventType: 'channel.created',
      status: 'pending',
    });
    expect(receiver.received).toHaveLength(0); // nothing is sent from the request
    await worker.runDue();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(got.contentType).toBe('application/json');
    expect(verifies(dest.secret, got)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toBe(false);
    expect(got.body).not.toContain(dest.secret.slice(6)); // no secret in a payload
    expect(Math.abs(Number(got.timestamp) - t.clock.now().getTime() / 1000)).toBeLessThan(5);
    expect(got.id).toBe(pending.eventId);
    expect(got.payload).toMatchObject({
      id: pending.eventId,
      type: 'channel.created',
      environment: 'test',
      data: { id: channel.id, name: 'Shop', status: 'active' },
    });
    expect(got.payload.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const done = await delivery(pending.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attemptCount: 1,
      lastResponseStatus: 200,
      nextAttemptAt: null,
    });
    expect(done.attempts).toEqual([
      { attemptedAt: expect.any(String), responseStatus: 200, durationMs: expect.any(Number), error: null },
    ]);
  });

  it('retries on the schedule, then fails; a redelivery keeps the webhook-id and can succeed', async () => {
    await destination();
    await createChannel();
    receiver.reply(() => ({ status: 500 }));
    await worker.runDue();
    const [first] = await deliveries();
    expect(first).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      lastResponseStatus: 500,
      lastError: 'HTTP 500',
    });
    expect(Date.parse(first.nextAttemptAt) - t.clock.now().getTime()).toBeLessThanOrEqual(2000);
    await advanceAndRun(500); // not yet due
    expect(receiver.received).toHaveLength(1);
    for (let i = 0; i < 3; i++) await advanceAndRun(2000);
    expect(receiver.received).toHaveLength(4); // 1 + 3 retries
    const failed = await delivery(first.id);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 4, nextAttemptAt: null });
    expect(failed.attempts.map((a: any) => a.responseStatus)).toEqual([500, 500, 500, 500]);
    await advanceAndRun(60_000);
    expect(receiver.received).toHaveLength(4);
    expect((await deliveries('?status=failed')).map((d) => d.id)).toEqual([first.id]);

    receiver.reply(() => ({ status: 204 }));
    const again = await t.http.post(`/v1/webhook-deliveries/${first.id}/redeliver`, { key: org.testKey });
    expect(again.status, again.text).toBe(202);
    expect(again.body.data).toMatchObject({ id: first.id, status: 'pending' });
    await worker.runDue();
    expect(receiver.received).toHaveLength(5);
    const ids = new Set(receiver.received.map((r) => r.id));
    expect(ids).toEqual(new Set([first.eventId]));
    expect(await delivery(first.id)).toMatchObject({ status: 'succeeded', attemptCount: 5 });
    const twice = await t.http.post(`/v1/webhook-deliveries/${first.id}/redeliver`, { key: org.testKey });
    expectProblemShape(twice, 409, 'delivery_not_failed');
  });

  it('a redelivery that fails again runs a fresh schedule', async () => {
    await destination();
    await createChannel();
    receiver.reply(() => ({ status: 502 }));
    await worker.runDue();
    for (let i = 0; i < 3; i++) await advanceAndRun(2000);
    const [failed] = await deliveries();
    expect(failed.status).toBe('failed');
    await t.http.post(`/v1/webhook-deliveries/${failed.id}/redeliver`, { key: org.testKey });
    await worker.runDue();
    expect((await delivery(failed.id)).status).toBe('pending');
    for (let i = 0; i < 3; i++) await advanceAndRun(2000);
    expect(await delivery(failed.id)).toMatchObject({ status: 'failed', attemptCount: 8 });
  });

  it('during a rotation grace both secrets sign; after it only the new one', async () => {
    const dest = await destination();
    const rotated = await t.http.post(`/v1/webhook-destinations/${dest.id}/rotate-secret`, {
      key: org.testKey,
      body: { graceSeconds: 3600 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(dest.secret);
    await createChannel();
    await worker.runDue();
    const [during] = receiver.received;
    expect(during.signature.split(' ')).toHaveLength(2);
    expect(verifies(dest.secret, during)).toBe(true);
    expect(verifies(newSecret, during)).toBe(true);

    t.clock.advance(3601_000);
    await createChannel();
    await worker.runDue();
    const later = receiver.received[1];
    expect(later.signature.split(' ')).toHaveLength(1);
    expect(verifies(newSecret, later)).toBe(true);
    expect(verifies(dest.secret, later)).toBe(false);
  });

  it('honours Retry-After on 503 and 429 (seconds and HTTP date)', async () => {
    await destination();
    await createChannel();
    receiver.reply(() => ({ status: 503, headers: { 'retry-after': '120' } }));
    await worker.runDue();
    const [d] = await deliveries();
    const wait = Date.parse((await delivery(d.id)).nextAttemptAt) - t.clock.now().getTime();
    expect(wait).toBeGreaterThan(119_000);
    expect(wait).toBeLessThanOrEqual(120_000);
    await advanceAndRun(5000); // the schedule's 1 s is overridden
    expect(receiver.received).toHaveLength(1);
    receiver.reply(() => ({
      status: 429,
      headers: { 'retry-after': new Date(t.clock.now().getTime() + 300_000).toUTCString() },
    }));
    await advanceAndRun(120_000);
    expect(receiver.received).toHaveLength(2);
    await advanceAndRun(200_000);
    expect(receiver.received).toHaveLength(2);
    receiver.reply(() => ({ status: 200 }));
    await advanceAndRun(101_000);
    expect(receiver.received).toHaveLength(3);
    expect((await delivery(d.id)).status).toBe('succeeded');
  });

  it('a 410 fails the delivery and disables the destination (gone); enable sends again', async () => {
    const dest = await destination();
    await createChannel();
    receiver.reply(() => ({ status: 410 }));
    await worker.runDue();
    const [d] = await deliveries();
    expect(await delivery(d.id)).toMatchObject({
      status: 'failed',
      attemptCount: 1,
      lastResponseStatus: 410,
    });
    const read = await t.http.get(`/v1/webhook-destinations/${dest.id}`, { key: org.testKey });
    expect(read.body.data).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    await createChannel(); // no delivery to a disabled destination
    expect(await deliveries()).toHaveLength(1);

    receiver.reply(() => ({ status: 200 }));
    const enabled = await t.http.post(`/v1/webhook-destinations/${dest.id}/enable`, { key: org.testKey });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabledReason: null });
    await createChannel();
    await worker.runDue();
    expect(await deliveries('?status=succeeded')).toHaveLength(1);
  });

  it('disable parks pending deliveries (no attempts) and enable resumes them', async () => {
    const dest = await destination();
    await createChannel();
    receiver.reply(() => ({ status: 500 }));
    await worker.runDue();
    const off = await t.http.post(`/v1/webhook-destinations/${dest.id}/disable`, { key: org.testKey });
    expect(off.body.data).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    expectProblemShape(
      await t.http.post(`/v1/webhook-destinations/${dest.id}/disable`, { key: org.testKey }),
      409,
      'invalid_state',
    );
    await advanceAndRun(10_000);
    expect(receiver.received).toHaveLength(1);
    const [parked] = await deliveries();
    expect(parked).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: null });
    await createChannel();
    expect(await deliveries()).toHaveLength(1);

    receiver.reply(() => ({ status: 200 }));
    await t.http.post(`/v1/webhook-destinations/${dest.id}/enable`, { key: org.testKey });
    expectProblemShape(
      await t.http.post(`/v1/webhook-destinations/${dest.id}/enable`, { key: org.testKey }),
      409,
      'invalid_state',
    );
    await worker.runDue();
    expect(await delivery(parked.id)).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });

  it('a destination failing for 5 days is disabled (failing)', async () => {
    const dest = await destination();
    receiver.reply(() => ({ status: 500 }));
    for (let day = 0; day <= 5; day++) {
      await createChannel();
      await worker.runDue();
      t.clock.advance(86_400_000);
    }
    const read = await t.http.get(`/v1/webhook-destinations/${dest.id}`, { key: org.testKey });
    expect(read.body.data).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
  });

  it('a success resets the 5-day failure count', async () => {
    const dest = await destination();
    for (let day = 0; day <= 5; day++) {
      receiver.reply(() => ({ status: day === 3 ? 200 : 500 }));
      await createChannel();
      await worker.runDue();
      t.clock.advance(86_400_000);
    }
    const read = await t.http.get(`/v1/webhook-destinations/${dest.id}`, { key: org.testKey });
    expect(read.body.data.status).toBe('enabled');
  });

  it('a redirect is a failure and is not followed', async () => {
    await destination();
    await createChannel();
    receiver.reply(() => ({ status: 302, headers: { location: `${receiver.url}/elsewhere` } }));
    await worker.runDue();
    expect(receiver.received).toHaveLength(1);
    const [d] = await deliveries();
    expect(d).toMatchObject({ status: 'pending', lastResponseStatus: 302 });
    expect(d.lastError).toContain('redirect');
  });

  it('sends only the event types a destination asked for; filters deliveries', async () => {
    const keysOnly = await destination({ eventTypes: ['api_key.created', 'api_key.revoked'] });
    const all = await destination();
    const archived = await destination({ eventTypes: ['channel.archived'] });
    const channel = await createChannel();
    const key = await t.http.post('/v1/api-keys', {
      key: org.testKey,
      body: { name: 'k', scopes: ['channels:read'] },
    });
    await t.http.post(`/v1/api-keys/${key.body.data.id}/revoke`, { key: org.testKey });
    await t.http.post(`/v1/channels/${channel.id}/archive`, { key: org.testKey });
    const types = async (id: string) =>
      (await deliveries(`?destinationId=${id}`)).map((d) => d.eventType).sort();
    expect(await types(keysOnly.id)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(await types(all.id)).toEqual([
      'api_key.created',
      'api_key.revoked',
      'channel.archived',
      'channel.created',
    ]);
    expect(await types(archived.id)).toEqual(['channel.archived']);
    expect(await deliveries('?eventType=api_key.revoked')).toHaveLength(2);
    await worker.runDue();
    const created = receiver.received.find((r) => r.payload.type === 'api_key.created');
    expect(created?.payload.data).toMatchObject({ id: key.body.data.id, status: 'active' });
    expect(JSON.stringify(created?.payload)).not.toContain(key.body.data.secret);
    expect((await t.http.get('/v1/webhook-deliveries?eventType=nope', { key: org.testKey })).status).toBe(
      422,
    );
  });

  it('pages deliveries with a cursor bound to the filters', async () => {
    await destination();
    for (let i = 0; i < 3; i++) await createChannel();
    const first = await t.http.get('/v1/webhook-deliveries?limit=2&status=pending', { key: org.testKey });
    expect(first.body.data).toHaveLength(2);
    const cursor = first.body.meta.nextCursor;
    const second = await t.http.get(`/v1/webhook-deliveries?limit=2&status=pending&cursor=${cursor}`, {
      key: org.testKey,
    });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.nextCursor).toBeNull();
    const other = await t.http.get(`/v1/webhook-deliveries?limit=2&cursor=${cursor}`, { key: org.testKey });
    expectProblemShape(other, 400, 'invalid_cursor');
  });

  it('events of one environment go only to that environment’s destinations', async () => {
    await destination();
    await createChannel(org.liveKey);
    expect(await deliveries()).toHaveLength(0);
  });
});

describe('webhook deliveries across restarts', () => {
  // Deliveries live in the database: a new process on the same store carries on where the old one stopped.
  it('a restart in the middle of a retry schedule loses nothing', async () => {
    const first = await startTestApp({ env, store: t.store });
    const org = await first.tenant();
    const dest = (
      await first.http.post('/v1/webhook-destinations', { key: org.testKey, body: { url: receiver.url } })
    ).body.data;
    await first.http.post('/v1/channels', { key: org.testKey, body: { name: 'Shop' } });
    receiver.reply(() => ({ status: 503 }));
    await webhookWorker(first).runDue();
    const [pending] = (await first.http.get('/v1/webhook-deliveries', { key: org.testKey })).body.data;
    expect(pending).toMatchObject({ status: 'pending', attemptCount: 1 });
    await first.close();

    const second = await startTestApp({ env, store: t.store });
    receiver.reply(() => ({ status: 200 }));
    second.clock.advance(5000);
    await webhookWorker(second).runDue();
    const done = (await second.http.get(`/v1/webhook-deliveries/${pending.id}`, { key: org.testKey })).body
      .data;
    expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(receiver.received.map((r) => r.id)).toEqual([pending.eventId, pending.eventId]);
    expect(verifies(dest.secret, receiver.received[1])).toBe(true); // the secret key survived too
    await second.close();
  });

  it('checks the address again at delivery time: a private target is not sent to when no longer allowed', async () => {
    const permissive = await startTestApp({ env, store: t.store });
    const org = await permissive.tenant();
    await permissive.http.post('/v1/webhook-destinations', { key: org.testKey, body: { url: receiver.url } });
    await permissive.http.post('/v1/channels', { key: org.testKey, body: { name: 'Shop' } });
    await permissive.close();

    const strict = await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '1' }, store: t.store });
    await webhookWorker(strict).runDue();
    const [delivery] = (await strict.http.get('/v1/webhook-deliveries', { key: org.testKey })).body.data;
    const read = (await strict.http.get(`/v1/webhook-deliveries/${delivery.id}`, { key: org.testKey })).body
      .data;
    expect(read).toMatchObject({ status: 'pending', attemptCount: 1, lastResponseStatus: null });
    expect(read.attempts[0].error).toMatch(/^not sent: the host resolves to a non-public IPv4 address/);
    strict.clock.advance(5000);
    await webhookWorker(strict).runDue();
    expect(
      (await strict.http.get(`/v1/webhook-deliveries/${delivery.id}`, { key: org.testKey })).body.data.status,
    ).toBe('failed');
    expect(receiver.received).toHaveLength(0);
    await strict.close();
  });
});
