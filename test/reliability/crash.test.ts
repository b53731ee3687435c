import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../helpers/http.ts';
import { createReadySite, SITE_ORIGIN } from '../helpers/sites.ts';
import { bootstrap, type ServeProcess, startServe, storeEnv } from './serve-process.ts';

/**
 * Every 201 is a promise that the consent is stored: the evidence commits before the answer. So a
 * SIGKILL mid-burst may lose requests that were never answered, but none that were; and retrying
 * any of them with its Idempotency-Key records it once (replaying the committed answer if there is
 * one). On the embedded store the same holds for its data directory.
 */
const BURST = 150;
const KILL_AFTER_ACKS = 40;
/**
 * Requests in flight at once. Group commit answers a whole batch at the same moment, so with the
 * whole burst in flight one batch could acknowledge everything before the kill lands; a bounded
 * stream keeps requests still to come when it does.
 */
const IN_FLIGHT = 16;

interface Attempt {
  idempotencyKey: string;
  body: Record<string, unknown>;
  /** The id of a received 201, if any. */
  ackedId?: string;
}

describe('a SIGKILL during a burst of consent writes', () => {
  const env = storeEnv();
  let server: ServeProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps every acknowledged consent, and retries with the same Idempotency-Key record none twice', async () => {
    const { apiKeys } = await bootstrap(env);
    server = await startServe(env);
    const http = createClient(server.baseUrl);
    // createReadySite only needs `http` and a clock to step (the child runs on the system clock).
    const site = await createReadySite({ http, clock: { advance() {} } } as never, apiKeys.live);
    const url = `/v1/public/sites/${site.siteKey}/preferences`;

    const attempts: Attempt[] = Array.from({ length: BURST }, () => ({
      idempotencyKey: randomUUID(),
      body: {
        subjectId: `sub-${randomUUID()}`,
        decisions: { analytics: 'granted', marketing: 'denied' },
        configVersion: site.configVersion,
      },
    }));
    const post = (a: Attempt, baseUrl: string) =>
      fetch(baseUrl + url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: SITE_ORIGIN,
          'idempotency-key': a.idempotencyKey,
        },
        body: JSON.stringify(a.body),
      });

    const victim = server;
    let acks = 0;
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < attempts.length) {
          const a = attempts[next++];
          try {
            const res = await post(a, victim.baseUrl);
            statuses.push(res.status);
            if (res.status === 201) {
              a.ackedId = ((await res.json()) as any).data.id;
              if (++acks === KILL_AFTER_ACKS) victim.child.kill('SIGKILL');
            }
          } catch {
            // The connection died with the process (or was refused after it): no answer, no promise made.
          }
        }
      }),
    );
    await victim.exited;
    const acked = attempts.filter((a) => a.ackedId);
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    // Some requests were cut off, or the kill came too late to test anything.
    expect(acked.length).toBeLessThan(BURST);
    expect(statuses.every((s) => s === 201)).toBe(true);

    server = await startServe(env);
    const after = createClient(server.baseUrl);
    for (const a of acked) {
      const res = await after.get(`/v1/evidence/${a.ackedId}`, { key: apiKeys.live });
      expect(res.status, `acknowledged ${a.ackedId} lost`).toBe(200);
    }
    // Each acknowledged decision is its subject's consent state too (written in the same commit).
    for (let i = 0; i < acked.length; i += 100) {
      const batch = acked.slice(i, i + 100);
      const res = await after.post('/v1/consent-state/lookups', {
        key: apiKeys.live,
        body: { channelId: site.channelId, subjectIds: batch.map((a) => a.body.subjectId) },
      });
      expect(res.status, res.text).toBe(200);
      res.body.data.forEach((r: any, j: number) => {
        expect(r.state?.purposes.analytics, `state of ${batch[j].ackedId} lost`).toMatchObject({
          decision: 'granted',
          eventId: batch[j].ackedId,
        });
      });
    }

    // Every attempt again, same key and body: an acknowledged one replays its id; the others record once.
    const ids = new Set<string>();
    for (const a of attempts) {
      const res = await post(a, server.baseUrl);
      expect(res.status).toBe(201);
      const id = ((await res.json()) as any).data.id as string;
      if (a.ackedId) expect(id).toBe(a.ackedId);
      ids.add(id);
    }
    expect(ids.size).toBe(BURST);
    // And the store holds exactly one event per Idempotency-Key.
    let count = 0;
    let cursor: string | null = null;
    do {
      const page: any = await after.get(
        `/v1/evidence?limit=100&channelId=${site.channelId}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: apiKeys.live },
      );
      expect(page.status).toBe(200);
      count += page.body.data.length;
      for (const event of page.body.data) expect(ids.has(event.id)).toBe(true);
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    expect(count).toBe(BURST);
  }, 120_000);
});
