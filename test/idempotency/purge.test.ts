import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/platform/clock.ts';
import { purgeExpiredIdempotencyKeys } from '../../src/platform/idempotency/idempotency.purge.ts';
import { idempotencyRepo } from '../../src/platform/idempotency/idempotency.repo.ts';
import { rawSql, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

// Rows expire in 2001, so the purge at a 2001 clock cannot touch rows of tests running beside this
// one on a shared PostgreSQL (theirs expire 24 h from now).
const row = (organizationId: string, key: string, expiresAt: Date) => ({
  organizationId,
  environment: 'test' as const,
  scope: 'key_test',
  key,
  fingerprint: 'f',
  responseStatus: 201,
  responseHeaders: {},
  responseBody: '{}',
  responseBodyEncrypted: false,
  requestId: 'req_test',
  createdAt: new Date(expiresAt.getTime() - 86_400_000),
  expiresAt,
});

async function keysOf(organizationId: string): Promise<string[]> {
  const result = await rawSql(t.store).execute(
    sql`select key from idempotency_keys where organization_id = ${organizationId} order by key`,
  );
  return (result as unknown as { rows: { key: string }[] }).rows.map((r) => r.key);
}

describe('purgeExpiredIdempotencyKeys', () => {
  it('deletes expired rows in bounded batches and keeps live ones', async () => {
    const org = `org_purge${Date.now()}`;
    const expiry = new Date('2001-01-01T00:00:00Z');
    for (const key of ['a', 'b', 'c'])
      await t.store.tx((tx) => idempotencyRepo.insert(tx, row(org, key, expiry)));
    await t.store.tx((tx) => idempotencyRepo.insert(tx, row(org, 'live', new Date('2001-01-03T00:00:00Z'))));
    const clock = createManualClock(new Date('2000-12-31T23:59:59Z'));
    expect(await purgeExpiredIdempotencyKeys(t.store, clock, 2)).toBe(0);
    clock.set(new Date('2001-01-01T00:00:01Z'));
    expect(await purgeExpiredIdempotencyKeys(t.store, clock, 2)).toBe(2);
    expect(await keysOf(org)).toHaveLength(2);
    while ((await purgeExpiredIdempotencyKeys(t.store, clock, 2)) > 0) {}
    expect(await keysOf(org)).toEqual(['live']);
  });

  it('refuses a nonsensical batch size', async () => {
    await expect(purgeExpiredIdempotencyKeys(t.store, t.clock, 0)).rejects.toThrow(/batchSize/);
  });
});
