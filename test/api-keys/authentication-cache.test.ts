import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

/**
 * API-key principals are cached in each API process (modules/api-keys/key-authenticator.ts). These
 * tests use a key first, so its principal is cached, then change it and expect the very next
 * request to see the change: in the same process at once, in another replica within moments.
 */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

async function issue(app: TestApp, body: Record<string, unknown> = {}) {
  const res = await app.http.post('/v1/api-keys', {
    key: tenant.testKey,
    body: { name: 'cached', scopes: ['api_keys:read'], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function useTwice(app: TestApp, secret: string) {
  for (let i = 0; i < 2; i++) expect((await app.http.get('/v1/api-keys', { key: secret })).status).toBe(200);
}

/** Polls until `check` holds, for at most `ms`; NOTIFY reaches other processes asynchronously. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('in one process', () => {
  it('a cached key is refused from the request after its revocation', async () => {
    const key = await issue(t);
    await useTwice(t, key.secret);
    expect((await t.http.post(`/v1/api-keys/${key.id}/revoke`, { key: tenant.testKey })).status).toBe(200);
    expectProblemShape(await t.http.get('/v1/api-keys', { key: key.secret }), 401, 'invalid_api_key');
  });

  it('also when the revocation commits with its Idempotency-Key record, after the handler', async () => {
    const key = await issue(t);
    await useTwice(t, key.secret);
    const res = await t.http.post(`/v1/api-keys/${key.id}/revoke`, {
      key: tenant.testKey,
      headers: { 'idempotency-key': `revoke-${key.id}` },
    });
    expect(res.status).toBe(200);
    expectProblemShape(await t.http.get('/v1/api-keys', { key: key.secret }), 401, 'invalid_api_key');
  });

  it('a cached key that rotates away with no grace is refused at once; one that expires, when it does', async () => {
    const old = await issue(t);
    await useTwice(t, old.secret);
    const rotated = await t.http.post(`/v1/api-keys/${old.id}/rotate`, {
      key: tenant.testKey,
      body: { graceSeconds: 0 },
    });
    expect(rotated.status).toBe(201);
    expectProblemShape(await t.http.get('/v1/api-keys', { key: old.secret }), 401, 'invalid_api_key');

    const expiresAt = `${new Date(t.clock.now().getTime() + 60_000).toISOString().slice(0, 19)}Z`;
    const expiring = await issue(t, { expiresAt });
    await useTwice(t, expiring.secret);
    t.clock.advance(61_000);
    expectProblemShape(await t.http.get('/v1/api-keys', { key: expiring.secret }), 401, 'invalid_api_key');
  });

  it("a new organization limit applies at once to a cached key's requests", async () => {
    const own = await t.tenant();
    expect((await t.http.get('/v1/api-keys', { key: own.testKey })).headers.get('x-ratelimit-limit')).toBe(
      '1000',
    );
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, own.organizationId, 7));
    const res = await t.http.get('/v1/api-keys', { key: own.testKey });
    expect(res.headers.get('x-ratelimit-limit')).toBe('7');
  });
});

// Two API replicas need two processes' worth of state on one database: PostgreSQL only (the
// embedded store is single-process, and every change it sees is this process's own).
describe.skipIf(skipWith(postgresOnly()))('across replicas (PostgreSQL)', () => {
  let replica: TestApp;
  beforeAll(async () => {
    // Its own store: its own pool and LISTEN connection, as another process would have.
    replica = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  });
  afterAll(() => replica?.close());

  it('a key revoked through one replica is refused by another that had it cached', async () => {
    const key = await issue(t);
    await useTwice(replica, key.secret);
    expect((await t.http.post(`/v1/api-keys/${key.id}/revoke`, { key: tenant.testKey })).status).toBe(200);
    const refused = await eventually(
      async () => (await replica.http.get('/v1/api-keys', { key: key.secret })).status === 401,
    );
    expect(refused).toBe(true);
  });

  it("an organization's new limit reaches another replica", async () => {
    const own = await t.tenant();
    await useTwice(replica, own.testKey);
    await t.store.tx((tx) => t.app.services.organizations.setRateLimit(tx, own.organizationId, 9));
    const seen = await eventually(
      async () =>
        (await replica.http.get('/v1/api-keys', { key: own.testKey })).headers.get('x-ratelimit-limit') ===
        '9',
    );
    expect(seen).toBe(true);
  });
});
