import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../../src/platform/idempotency/idempotency.tables.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const recordsOf = (organizationId: string) =>
  t.store.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.organizationId, organizationId));

describe('the worker purges expired idempotency records', () => {
  it('keeps a record for 24 hours, then the hourly job deletes it and the key is free again', async () => {
    const tenant = await t.tenant();
    const send = () =>
      t.http.post('/v1/api-keys', {
        key: tenant.testKey,
        headers: { 'idempotency-key': 'purge-me' },
        body: { name: 'purge', scopes: ['channels:read'] },
      });
    const first = await send();
    expect(first.status).toBe(201);
    expect(await recordsOf(tenant.organizationId)).toHaveLength(1);

    t.clock.advance(23 * 3600_000);
    await t.worker.runDue();
    expect(await recordsOf(tenant.organizationId)).toHaveLength(1);
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(first.body.data.id);

    t.clock.advance(2 * 3600_000);
    await t.worker.runDue();
    expect(await recordsOf(tenant.organizationId)).toHaveLength(0);
    const fresh = await send();
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
  });
});
