import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { identify, mintToken } from './identity-helpers.ts';

/** `POST/GET /v1/channels/:id/identity-secrets` and `DELETE …/:secretId`: shown once, two at most, sealed, audited. */
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;
let site: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  stranger = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t?.close());

const base = () => `/v1/channels/${site.channelId}/identity-secrets`;

describe('identity secrets', () => {
  it('creates (secret once), lists without secrets, refuses a third, revokes, and audits each change', async () => {
    const key = tenant.testKey;
    const first = await t.http.post(base(), { key });
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body.data).sort()).toEqual(['createdAt', 'id', 'secret']);
    expect(first.body.data.id).toMatch(/^isk_[0-9A-Za-z]{22}$/);
    expect(first.body.data.secret).toMatch(/^idsec_[0-9A-Za-z]{43}$/);
    t.clock.advance(1_000);
    const second = await t.http.post(base(), { key, body: {} });
    expect(second.status, second.text).toBe(201);
    expect(second.body.data.secret).not.toBe(first.body.data.secret);

    const third = expectProblemShape(await t.http.post(base(), { key }), 409, 'invalid_state');
    expect(third.detail).toContain('2 active identity secrets');

    const listed = await t.http.get(base(), { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      { id: second.body.data.id, createdAt: second.body.data.createdAt },
      { id: first.body.data.id, createdAt: first.body.data.createdAt },
    ]);
    expect(listed.body.meta).toEqual({ nextCursor: null });
    expect(listed.text).not.toContain(first.body.data.secret);

    const revoked = await t.http.delete(`${base()}/${first.body.data.id}`, { key });
    expect(revoked.status, revoked.text).toBe(204);
    expectProblemShape(await t.http.delete(`${base()}/${first.body.data.id}`, { key }), 404, 'not_found');
    expect((await t.http.get(base(), { key })).body.data.map((s: { id: string }) => s.id)).toEqual([
      second.body.data.id,
    ]);
    // Room for a successor again.
    const successor = await t.http.post(base(), { key });
    expect(successor.status, successor.text).toBe(201);

    const audit = await t.http.get('/v1/audit-logs?limit=100', { key });
    const actions = audit.body.data
      .filter((e: { target: { type: string } | null }) => e.target?.type === 'identity_secret')
      .map((e: { action: string; target: { id: string } }) => `${e.action} ${e.target.id}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        `identity_secret.created ${first.body.data.id}`,
        `identity_secret.created ${second.body.data.id}`,
        `identity_secret.revoked ${first.body.data.id}`,
      ]),
    );
    expect(audit.text).not.toContain(first.body.data.secret);

    // At rest: sealed (AES-256-GCM), never the secret itself.
    const stored = (await rawSql(t.store).execute(
      sql`select secret_ciphertext from identity_secrets where channel_id = ${site.channelId}`,
    )) as unknown as { rows: Array<{ secret_ciphertext: string }> };
    const rows = stored.rows;
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.secret_ciphertext).toMatch(/^v1\./);
      for (const created of [first, second, successor]) {
        expect(row.secret_ciphertext).not.toContain(created.body.data.secret.slice('idsec_'.length));
      }
    }
    // And what it seals is the key tokens are checked with.
    const token = await mintToken(t, successor.body.data.secret, site.siteKey);
    expect((await identify(t, site.siteKey, token)).status).toBe(200);
  });

  it('refuses callers without a key or the scope, and hides other organizations’ and environments’ channels', async () => {
    const secretPath = `${base()}/isk_0000000000000000000000`;
    for (const [method, path] of [
      ['POST', base()],
      ['GET', base()],
      ['DELETE', secretPath],
    ] as const) {
      expectProblemShape(await t.http.request(method, path), 401, 'authentication_required');
      expectProblemShape(
        await t.http.request(method, path, { key: 'svc_test_nope' }),
        401,
        'invalid_api_key',
      );
    }
    const reader = await tenant.key(['channels:read']);
    for (const [method, path] of [
      ['POST', base()],
      ['DELETE', secretPath],
    ] as const) {
      const problem = expectProblemShape(
        await t.http.request(method, path, { key: reader.secret }),
        403,
        'insufficient_scope',
      );
      expect(problem.detail).toContain('channels:manage');
    }
    const evidenceOnly = await tenant.key(['evidence:read']);
    expectProblemShape(await t.http.get(base(), { key: evidenceOnly.secret }), 403, 'insufficient_scope');

    const [existing] = (await t.http.get(base(), { key: tenant.testKey })).body.data;
    for (const key of [stranger.testKey, tenant.liveKey]) {
      expectProblemShape(await t.http.post(base(), { key }), 404, 'not_found');
      expectProblemShape(await t.http.get(base(), { key }), 404, 'not_found');
      expectProblemShape(await t.http.delete(`${base()}/${existing.id}`, { key }), 404, 'not_found');
    }
    // Still there after those attempts.
    expect((await t.http.get(base(), { key: tenant.testKey })).body.data).toContainEqual(existing);
  });

  it('422 for a body with members, 404 for an unknown channel, 409 on an archived channel', async () => {
    expectProblemShape(
      await t.http.post(base(), { key: tenant.testKey, body: { secret: 'mine' } }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await t.http.post('/v1/channels/ch_unknown/identity-secrets', { key: tenant.testKey }),
      404,
      'not_found',
    );
    const archived = await createReadySite(t, tenant.testKey, { name: 'Closed' });
    const res = await t.http.post(`/v1/channels/${archived.channelId}/archive`, { key: tenant.testKey });
    expect(res.status, res.text).toBe(200);
    expectProblemShape(
      await t.http.post(`/v1/channels/${archived.channelId}/identity-secrets`, { key: tenant.testKey }),
      409,
      'invalid_state',
    );
  });
});
