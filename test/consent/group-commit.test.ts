import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { LOCAL_WEBHOOKS_ENV, subscribeWebhook } from '../helpers/webhooks.ts';

/**
 * Consent writes share transactions (the evidence group commit), keyed ones together with their
 * Idempotency-Key records. These tests fire requests concurrently, so that they land in the same
 * batches, and check from outside that nothing is lost, doubled or answered before it is stored.
 */
let t: TestApp;
let tenant: Tenant;
let s: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV } });
  tenant = await t.tenant();
  s = await createReadySite(t, tenant.testKey);
  // Outbox events are stored only for an event type some destination takes.
  await subscribeWebhook(t, tenant.testKey, ['consent.recorded']);
});
afterAll(() => t.close());

/** consent_service_decisions_total over every outcome, as /metrics reports it. */
async function decisionsCounted(): Promise<number> {
  const metrics = await t.app.services.metrics.scrape(() => {});
  const counts = metrics.matchAll(/^consent_service_decisions_total\{[^}]*\} (\d+)$/gm);
  return [...counts].reduce((sum, [, n]) => sum + Number(n), 0);
}

const post = (body: unknown, idempotencyKey?: string) =>
  postPreferences(t, s.siteKey, body, idempotencyKey ? { idempotencyKey } : {});

async function eventIdsOf(subjectId: string): Promise<string[]> {
  const res = await t.http.get(`/v1/evidence?subjectId=${encodeURIComponent(subjectId)}`, {
    key: tenant.testKey,
  });
  expect(res.status).toBe(200);
  return res.body.data.map((event: { id: string }) => event.id);
}

async function outboxEventsFor(eventId: string): Promise<number> {
  const result = await rawSql(t.store).execute(
    sql`select count(*)::int as n from webhook_events
        where organization_id = ${tenant.organizationId} and type = 'consent.recorded' and data->>'id' = ${eventId}`,
  );
  return (result as unknown as { rows: Array<{ n: number }> }).rows[0].n;
}

describe('consent writes in shared transactions', () => {
  it('60 concurrent writes, keyed and not: every acknowledged event is stored once, with its outbox event', async () => {
    const bodies = Array.from({ length: 60 }, () => preferencesBody(s));
    const responses = await Promise.all(
      bodies.map((body, i) => post(body, i % 2 === 0 ? `gc-distinct-${body.subjectId}` : undefined)),
    );
    for (const [i, res] of responses.entries()) {
      expect(res.status, res.text).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(await eventIdsOf(bodies[i].subjectId)).toEqual([res.body.data.id]);
      expect(await outboxEventsFor(res.body.data.id)).toBe(1);
    }
  });

  it('8 concurrent identical keyed writes make one event; every answer is that 201, counted once', async () => {
    const body = preferencesBody(s);
    const decisionsBefore = await decisionsCounted();
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(body, 'gc-same-key')));
    const ids = await eventIdsOf(body.subjectId);
    expect(ids).toHaveLength(1);
    for (const res of responses) {
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.id).toBe(ids[0]);
    }
    // One answer is the original; the others are replays of it.
    expect(responses.filter((res) => res.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await outboxEventsFor(ids[0])).toBe(1);
    // The decisions metric counts the one decision recorded, not the 7 answers that replayed it
    // (each is counted as its response finishes, before its client reads it).
    expect(await decisionsCounted()).toBe(decisionsBefore + 1);
  });

  it('concurrent writes reusing one key with different bodies: one event, the others 422 idempotency_key_reused', async () => {
    const bodies = Array.from({ length: 6 }, () => preferencesBody(s));
    const responses = await Promise.all(bodies.map((body) => post(body, 'gc-reused-key')));
    const created = responses.filter((res) => res.status === 201);
    expect(created).toHaveLength(1);
    for (const res of responses)
      if (res.status !== 201) expectProblemShape(res, 422, 'idempotency_key_reused');
    const stored = await Promise.all(bodies.map((body) => eventIdsOf(body.subjectId)));
    expect(stored.flat()).toEqual([created[0].body.data.id]);
  });

  it('a refused keyed write is stored as its 4xx and replayed, without an event', async () => {
    const body = preferencesBody(s, { decisions: { no_such_purpose: 'granted' } });
    const first = await post(body, 'gc-refused');
    expectProblemShape(first, 422, 'unknown_purpose');
    const replay = await post(body, 'gc-refused');
    expect(replay.status).toBe(422);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.requestId).toBe(first.body.requestId);
    expect(await eventIdsOf(body.subjectId)).toEqual([]);
  });

  it('after 24 hours a key is free again: the expired record is replaced and a new event made', async () => {
    const body = preferencesBody(s);
    const first = await post(body, 'gc-expiring');
    expect(first.status).toBe(201);
    t.clock.advance(24 * 3600 * 1000 + 1000);
    try {
      const later = await post(body, 'gc-expiring');
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(later.body.data.id).not.toBe(first.body.data.id);
      const replay = await post(body, 'gc-expiring');
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data.id).toBe(later.body.data.id);
    } finally {
      t.clock.advance(-(24 * 3600 * 1000 + 1000));
    }
  });
});
