import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKeySecret } from '../../src/platform/auth/api-key-format.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';

let t: TestApp;
let tenant: Tenant;

const DAY_MS = 86_400_000;
const KEY_FORMAT = /^svc_(test|live)_[0-9A-Za-z]{38}$/;

beforeAll(async () => {
  // A generous limit: these tests are about keys, not about rate limiting.
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  tenant = await t.tenant();
});
afterAll(() => t.close());

async function create(key: string, body: Record<string, unknown>): Promise<TestResponse> {
  return t.http.post('/v1/api-keys', { key, body });
}

async function createOk(key: string, body: Record<string, unknown>) {
  const res = await create(key, body);
  expect(res.status, res.text).toBe(201);
  return res.body.data as Record<string, any> & { id: string; secret: string };
}

function expectUnauthorized(res: TestResponse, code: 'authentication_required' | 'invalid_api_key') {
  expectProblemShape(res, 401, code);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

describe('creating a key', () => {
  it('shows the secret once, in the create response only', async () => {
    const created = await createOk(tenant.testKey, { name: 'ci', scopes: ['channels:read'] });
    expect(created.secret).toMatch(KEY_FORMAT);
    expect(created.secret.startsWith('svc_test_')).toBe(true);
    expect(created.prefix).toBe(created.secret.slice(0, 12));
    expect(created).toMatchObject({
      name: 'ci',
      environment: 'test',
      scopes: ['channels:read'],
      status: 'active',
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.id).toMatch(/^key_/);
    expect(created.memberId).toBe(tenant.ownerId);

    const list = await t.http.get('/v1/api-keys?limit=100', { key: tenant.testKey });
    const one = await t.http.get(`/v1/api-keys/${created.id}`, { key: tenant.testKey });
    const audit = await t.http.get('/v1/audit-logs?limit=100', { key: tenant.testKey });
    for (const res of [list, one, audit]) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(created.secret);
      expect(res.text).not.toContain(created.secret.slice(12));
      expect(res.text).not.toMatch(/"secret"|secretHash|secret_hash/);
    }
    expect(one.body.data.prefix).toBe(created.prefix);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(created.id);
  });

  it('stores only a hash of the secret, never the secret or its random part', async () => {
    const created = await createOk(tenant.testKey, { name: 'stored', scopes: ['channels:read'] });
    const result = (await rawSql(t.store).execute(
      sql`select * from api_keys where organization_id = ${tenant.organizationId} and id = ${created.id}`,
    )) as unknown as { rows: Record<string, unknown>[] };
    expect(result.rows).toHaveLength(1);
    const stored = JSON.stringify(result.rows[0]);
    expect(stored).not.toContain(created.secret);
    expect(stored).not.toContain(created.secret.slice(12));
    expect(stored).toContain(created.prefix);
  });

  it('issues live keys in the live environment with the svc_live_ prefix', async () => {
    const created = await createOk(tenant.liveKey, { name: 'live', scopes: ['evidence:read'] });
    expect(created.secret).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(created.environment).toBe('live');
  });

  it('the new key authenticates with exactly its scopes', async () => {
    const created = await createOk(tenant.testKey, { name: 'reader', scopes: ['api_keys:read'] });
    expect((await t.http.get('/v1/api-keys', { key: created.secret })).status).toBe(200);
    const denied = await t.http.get('/v1/audit-logs', { key: created.secret });
    expectProblemShape(denied, 403, 'insufficient_scope');
  });

  it('stores the webhooks:manage alias as webhooks:write, without duplicates', async () => {
    const created = await createOk(tenant.testKey, {
      name: 'hooks',
      scopes: ['webhooks:manage', 'webhooks:write', 'webhooks:read'],
    });
    expect(created.scopes.sort()).toEqual(['webhooks:read', 'webhooks:write']);
    const one = await t.http.get(`/v1/api-keys/${created.id}`, { key: tenant.testKey });
    expect(one.body.data.scopes).not.toContain('webhooks:manage');
  });

  it('rejects scopes outside the catalogue with 422 invalid_scopes listing them', async () => {
    const res = await create(tenant.testKey, {
      name: 'x',
      scopes: ['channels:read', 'admin:all', 'channels:delete'],
    });
    const problem = expectProblemShape(res, 422, 'invalid_scopes');
    expect(problem.invalidScopes).toEqual(['admin:all', 'channels:delete']);
  });

  it('rejects an empty scope list with 422', async () => {
    const res = await create(tenant.testKey, { name: 'x', scopes: [] });
    expect(res.status).toBe(422);
    expect(expectProblemShape(res, 422, res.body.code).code).toMatch(/^(validation_failed|invalid_scopes)$/);
  });

  it('a developer may not issue audit:read:limited (role rule, 403 scope_not_allowed)', async () => {
    const developer = await tenant.key(['api_keys:manage', 'channels:read'], { role: 'developer' });
    const res = await create(developer.secret, { name: 'x', scopes: ['audit:read:limited'] });
    const problem = expectProblemShape(res, 403, 'scope_not_allowed');
    expect(problem.detail).toContain('audit:read:limited');
    // Everything else the role allows and the key holds is fine.
    await createOk(developer.secret, { name: 'ok', scopes: ['channels:read'] });
  });

  it('an analyst may hold only read-only scopes and audit:read:limited', async () => {
    const readOnly = [
      'evidence:read',
      'webhooks:read',
      'api_keys:read',
      'channels:read',
      'audit:read:limited',
    ];
    const analyst = await tenant.key(readOnly as never, { role: 'analyst' });
    expect((await t.http.get('/v1/audit-logs', { key: analyst.secret })).status).toBe(200);
    // An analyst can never hold api_keys:manage, so the role rule is checked at issue time (as by the CLI).
    for (const scope of ['channels:manage', 'api_keys:manage', 'exports:create', 'webhooks:write']) {
      await expect(tenant.key([scope] as never, { role: 'analyst' })).rejects.toMatchObject({
        code: 'scope_not_allowed',
      });
    }
    await expect(tenant.key(['audit:read:limited'], { role: 'developer' })).rejects.toMatchObject({
      code: 'scope_not_allowed',
    });
  });

  it('no escalation: a key cannot issue a scope it does not hold (403 scope_not_allowed)', async () => {
    const limited = await tenant.key(['api_keys:manage', 'channels:read']);
    const res = await create(limited.secret, { name: 'x', scopes: ['channels:manage'] });
    const problem = expectProblemShape(res, 403, 'scope_not_allowed');
    expect(problem.detail).toContain('channels:manage');
    await createOk(limited.secret, { name: 'same', scopes: ['channels:read', 'api_keys:manage'] });
  });

  it('creates the key in the caller’s environment', async () => {
    const live = await tenant.key(['api_keys:manage', 'api_keys:read', 'channels:read'], {
      environment: 'live',
    });
    const created = await createOk(live.secret, { name: 'from live', scopes: ['channels:read'] });
    expect(created.environment).toBe('live');
    const liveList = await t.http.get('/v1/api-keys?limit=100', { key: live.secret });
    const testList = await t.http.get('/v1/api-keys?limit=100', { key: tenant.testKey });
    expect(liveList.body.data.map((k: { id: string }) => k.id)).toContain(created.id);
    expect(testList.body.data.map((k: { id: string }) => k.id)).not.toContain(created.id);
  });
});

describe('expiry', () => {
  it('rejects expiresAt in the past or now with 422', async () => {
    const past = new Date(t.clock.now().getTime() - 1000).toISOString();
    const res = await create(tenant.testKey, { name: 'x', scopes: ['channels:read'], expiresAt: past });
    expect(expectProblemShape(res, 422, 'validation_failed').errors[0].path).toBe('/expiresAt');
    const notADate = await create(tenant.testKey, {
      name: 'x',
      scopes: ['channels:read'],
      expiresAt: 'soon',
    });
    expectProblemShape(notADate, 422, 'validation_failed');
  });

  it('a key with a future expiresAt works until then, then is 401 and listed as expired', async () => {
    const expiresAt = `${new Date(t.clock.now().getTime() + 3_600_000).toISOString().slice(0, 19)}Z`;
    const created = await createOk(tenant.testKey, { name: 'short', scopes: ['api_keys:read'], expiresAt });
    expect(created.expiresAt).toBe(expiresAt);
    expect((await t.http.get('/v1/api-keys', { key: created.secret })).status).toBe(200);
    t.clock.advance(3_600_000 + 1000);
    expectUnauthorized(await t.http.get('/v1/api-keys', { key: created.secret }), 'invalid_api_key');
    const one = await t.http.get(`/v1/api-keys/${created.id}`, { key: tenant.testKey });
    expect(one.body.data.status).toBe('expired');
  });
});

describe('rotation', () => {
  it('with the default grace: new key with the same scopes; the old one works for 86400 s more', async () => {
    const old = await createOk(tenant.testKey, { name: 'rot', scopes: ['api_keys:read', 'channels:read'] });
    const now = t.clock.now().getTime();
    const res = await t.http.post(`/v1/api-keys/${old.id}/rotate`, { key: tenant.testKey });
    expect(res.status, res.text).toBe(201);
    const fresh = res.body.data;
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.secret).toMatch(KEY_FORMAT);
    expect(fresh.scopes).toEqual(old.scopes);
    expect(fresh.name).toBe(old.name);
    expect(res.headers.get('location')).toBe(`/v1/api-keys/${fresh.id}`);

    const oldNow = (await t.http.get(`/v1/api-keys/${old.id}`, { key: tenant.testKey })).body.data;
    expect(oldNow.status).toBe('active');
    expect(Math.abs(Date.parse(oldNow.expiresAt) - (now + DAY_MS))).toBeLessThanOrEqual(1000);
    expect((await t.http.get('/v1/api-keys', { key: old.secret })).status).toBe(200);
    expect((await t.http.get('/v1/api-keys', { key: fresh.secret })).status).toBe(200);

    t.clock.advance(DAY_MS + 1000);
    expectUnauthorized(await t.http.get('/v1/api-keys', { key: old.secret }), 'invalid_api_key');
    expect((await t.http.get('/v1/api-keys', { key: fresh.secret })).status).toBe(200);
    const later = await t.http.get(`/v1/api-keys/${old.id}`, { key: tenant.testKey });
    expect(later.body.data.status).toBe('expired');
  });

  it('an explicit {} body also means the default grace', async () => {
    const old = await createOk(tenant.testKey, { name: 'rot2', scopes: ['channels:read'] });
    const now = t.clock.now().getTime();
    const res = await t.http.post(`/v1/api-keys/${old.id}/rotate`, { key: tenant.testKey, body: {} });
    expect(res.status, res.text).toBe(201);
    const oldNow = (await t.http.get(`/v1/api-keys/${old.id}`, { key: tenant.testKey })).body.data;
    expect(Math.abs(Date.parse(oldNow.expiresAt) - (now + DAY_MS))).toBeLessThanOrEqual(1000);
  });

  it('with graceSeconds 0 the old key is rejected at once (a key can rotate itself)', async () => {
    const old = await createOk(tenant.testKey, {
      name: 'self',
      scopes: ['api_keys:manage', 'api_keys:read'],
    });
    const res = await t.http.post(`/v1/api-keys/${old.id}/rotate`, {
      key: old.secret,
      body: { graceSeconds: 0 },
    });
    expect(res.status, res.text).toBe(201);
    expectUnauthorized(await t.http.get('/v1/api-keys', { key: old.secret }), 'invalid_api_key');
    expect((await t.http.get('/v1/api-keys', { key: res.body.data.secret })).status).toBe(200);
  });

  it('refuses to rotate a revoked key (409 invalid_state)', async () => {
    const key = await createOk(tenant.testKey, { name: 'gone', scopes: ['channels:read'] });
    expect((await t.http.post(`/v1/api-keys/${key.id}/revoke`, { key: tenant.testKey })).status).toBe(200);
    const res = await t.http.post(`/v1/api-keys/${key.id}/rotate`, { key: tenant.testKey });
    expectProblemShape(res, 409, 'invalid_state');
  });

  it('rejects graceSeconds outside 0–604800 with 422', async () => {
    const key = await createOk(tenant.testKey, { name: 'g', scopes: ['channels:read'] });
    for (const graceSeconds of [-1, 604_801, 1.5, '60', null]) {
      const res = await t.http.post(`/v1/api-keys/${key.id}/rotate`, {
        key: tenant.testKey,
        body: { graceSeconds },
      });
      expectProblemShape(res, 422, 'validation_failed');
    }
    const max = await t.http.post(`/v1/api-keys/${key.id}/rotate`, {
      key: tenant.testKey,
      body: { graceSeconds: 604_800 },
    });
    expect(max.status).toBe(201);
  });

  it('no escalation through rotation: the caller must hold the rotated key’s scopes', async () => {
    const wide = await createOk(tenant.testKey, { name: 'wide', scopes: ['channels:manage'] });
    const narrow = await tenant.key(['api_keys:manage']);
    const res = await t.http.post(`/v1/api-keys/${wide.id}/rotate`, { key: narrow.secret });
    expectProblemShape(res, 403, 'scope_not_allowed');
  });
});

describe('revocation', () => {
  it('revokes (200, status revoked); the key is then 401 with WWW-Authenticate; twice is 409', async () => {
    const key = await createOk(tenant.testKey, { name: 'r', scopes: ['api_keys:read'] });
    expect((await t.http.get('/v1/api-keys', { key: key.secret })).status).toBe(200);
    const res = await t.http.post(`/v1/api-keys/${key.id}/revoke`, { key: tenant.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('revoked');
    expect(res.body.data.revokedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(res.text).not.toContain(key.secret);
    expectUnauthorized(await t.http.get('/v1/api-keys', { key: key.secret }), 'invalid_api_key');
    const again = await t.http.post(`/v1/api-keys/${key.id}/revoke`, { key: tenant.testKey });
    expectProblemShape(again, 409, 'invalid_state');
  });

  it('the rule of rotation: revoking a key whose scopes the caller does not hold is 403 scope_not_allowed', async () => {
    const wide = await createOk(tenant.testKey, { name: 'wide', scopes: ['channels:read'] });
    const narrow = await tenant.key(['api_keys:manage']);
    const refused = await t.http.post(`/v1/api-keys/${wide.id}/revoke`, { key: narrow.secret });
    expectProblemShape(refused, 403, 'scope_not_allowed');
    // Still working: the refusal changed nothing.
    expect((await t.http.get('/v1/channels', { key: wide.secret })).status).toBe(200);
    // A role that may not hold the scope cannot revoke it either, even holding every scope its role allows.
    const audited = await createOk(tenant.testKey, { name: 'audit', scopes: ['audit:read:limited'] });
    const developer = await tenant.key(['api_keys:manage', 'channels:read'], { role: 'developer' });
    const byDeveloper = await t.http.post(`/v1/api-keys/${audited.id}/revoke`, { key: developer.secret });
    expectProblemShape(byDeveloper, 403, 'scope_not_allowed');
    // A key holding the scopes may.
    const peer = await tenant.key(['api_keys:manage', 'channels:read']);
    const ok = await t.http.post(`/v1/api-keys/${wide.id}/revoke`, { key: peer.secret });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe('lastUsedAt', () => {
  it('is null until the key is used, then set', async () => {
    const key = await createOk(tenant.testKey, { name: 'u', scopes: ['api_keys:read'] });
    expect(key.lastUsedAt).toBeNull();
    t.clock.advance(5000);
    const usedAt = t.clock.now();
    await t.http.get('/v1/api-keys', { key: key.secret });
    const one = await t.http.get(`/v1/api-keys/${key.id}`, { key: tenant.testKey });
    expect(one.body.data.lastUsedAt).toBe(`${usedAt.toISOString().slice(0, 19)}Z`);
  });
});

describe('isolation', () => {
  it('a live key cannot see or act on a test key (404)', async () => {
    const testKey = await createOk(tenant.testKey, { name: 'test only', scopes: ['channels:read'] });
    const live = tenant.liveKey;
    for (const res of [
      await t.http.get(`/v1/api-keys/${testKey.id}`, { key: live }),
      await t.http.post(`/v1/api-keys/${testKey.id}/rotate`, { key: live }),
      await t.http.post(`/v1/api-keys/${testKey.id}/revoke`, { key: live }),
    ]) {
      expectProblemShape(res, 404, 'not_found');
    }
    const list = await t.http.get('/v1/api-keys?limit=100', { key: live });
    expect(list.body.data.every((k: { environment: string }) => k.environment === 'live')).toBe(true);
    // Still usable in its own environment.
    expect((await t.http.get(`/v1/api-keys/${testKey.id}`, { key: tenant.testKey })).status).toBe(200);
  });

  it('another organization’s key is a 404 for get, rotate and revoke, and absent from lists', async () => {
    const other = await t.tenant();
    const theirs = await createOk(other.testKey, { name: 'theirs', scopes: ['channels:read'] });
    for (const res of [
      await t.http.get(`/v1/api-keys/${theirs.id}`, { key: tenant.testKey }),
      await t.http.post(`/v1/api-keys/${theirs.id}/rotate`, { key: tenant.testKey }),
      await t.http.post(`/v1/api-keys/${theirs.id}/revoke`, { key: tenant.testKey }),
    ]) {
      expectProblemShape(res, 404, 'not_found');
    }
    const list = await t.http.get('/v1/api-keys?limit=100', { key: tenant.testKey });
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(theirs.id);
    const still = await t.http.get(`/v1/api-keys/${theirs.id}`, { key: other.testKey });
    expect(still.body.data.status).toBe('active');
  });
});

describe('authentication errors', () => {
  it('missing header is 401 authentication_required', async () => {
    expectUnauthorized(await t.http.get('/v1/api-keys'), 'authentication_required');
  });

  it('wrong scheme, malformed, bad checksum and unknown keys are 401 invalid_api_key', async () => {
    const real = tenant.testKey;
    const last = real.at(-1);
    const badChecksum = real.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const wrongEnv = `svc_live_${real.slice(9)}`;
    const cases: Record<string, string>[] = [
      { authorization: `Basic ${Buffer.from(`${real}:`).toString('base64')}` },
      { authorization: real },
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${real.slice(0, -2)}` },
      { authorization: `Bearer ${badChecksum}` },
      { authorization: `Bearer ${wrongEnv}` },
      { authorization: `Bearer ${generateApiKeySecret('test')}` },
      { authorization: `Bearer ${real} extra` },
    ];
    for (const headers of cases) {
      expectUnauthorized(await t.http.get('/v1/api-keys', { headers }), 'invalid_api_key');
    }
    // The scheme is case-insensitive (RFC 9110).
    expect((await t.http.get('/v1/api-keys', { headers: { authorization: `bearer ${real}` } })).status).toBe(
      200,
    );
  });

  it('a key lacking the route’s scope is 403 insufficient_scope naming the scope', async () => {
    const reader = await tenant.key(['api_keys:read']);
    for (const [path, scope] of [
      ['/v1/api-keys', 'api_keys:manage'],
      ['/v1/api-keys/key_x/revoke', 'api_keys:manage'],
    ]) {
      const problem = expectProblemShape(
        await t.http.post(path, { key: reader.secret, body: {} }),
        403,
        'insufficient_scope',
      );
      expect(problem.detail).toContain(scope);
    }
    const noRead = await tenant.key(['channels:read']);
    const problem = expectProblemShape(
      await t.http.get('/v1/api-keys', { key: noRead.secret }),
      403,
      'insufficient_scope',
    );
    expect(problem.detail).toContain('api_keys:read');
  });
});
