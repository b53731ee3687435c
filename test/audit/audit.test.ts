import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';

let t: TestApp;

interface AuditEntry {
  id: string;
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  requestId: string | null;
  ipPrefix: string | null;
  environment: string;
  occurredAt: string;
}

/** A tenant that has done one of every recorded API-key action, with what the test needs to check. */
interface Story {
  tenant: Tenant;
  ownerKeyId: string;
  readerKeyId: string;
  createdId: string;
  rotatedToId: string;
  secrets: string[];
  canary: string;
  requestIds: Record<string, string>;
  startedAt: Date;
}

let story: Story;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  // Mid-second, so whole-second filters on the shown occurredAt are exercised.
  t.clock.set(new Date('2031-03-04T05:06:07.500Z'));
  story = await playStory();
});
afterAll(() => t.close());

const second = (ms: number) => t.clock.advance(ms);

async function keyIdOf(tenant: Tenant, secret: string): Promise<string> {
  const list = await t.http.get('/v1/api-keys?limit=100', { key: tenant.testKey });
  return list.body.data.find((k: { prefix: string }) => k.prefix === secret.slice(0, 12)).id;
}

async function playStory(): Promise<Story> {
  const startedAt = t.clock.now();
  const tenant = await t.tenant();
  const key = tenant.testKey;
  const canary = `CANARY-${Math.random().toString(36).slice(2)}`;
  const requestIds: Record<string, string> = {};
  const call = async (label: string, send: (headers: Record<string, string>) => Promise<TestResponse>) => {
    second(1000);
    requestIds[label] = `rq-${label}`;
    const res = await send({ 'x-request-id': requestIds[label] });
    expect(res.headers.get('x-request-id')).toBe(requestIds[label]);
    return res;
  };

  const created = await call('create', (headers) =>
    t.http.post('/v1/api-keys', { key, headers, body: { name: canary, scopes: ['channels:read'] } }),
  );
  const createdId = created.body.data.id;
  await call('list', (headers) => t.http.get('/v1/api-keys', { key, headers }));
  await call('get', (headers) => t.http.get(`/v1/api-keys/${createdId}`, { key, headers }));
  const rotated = await call('rotate', (headers) =>
    t.http.post(`/v1/api-keys/${createdId}/rotate`, { key, headers, body: { graceSeconds: 60 } }),
  );
  const rotatedToId = rotated.body.data.id;
  await call('revoke', (headers) => t.http.post(`/v1/api-keys/${rotatedToId}/revoke`, { key, headers }));

  second(1000); // keys issued outside HTTP get their own second, apart from the calls above
  const reader = await tenant.key(['api_keys:read', 'channels:read']);
  const denied = await call('insufficient', (headers) =>
    t.http.post('/v1/api-keys', { key: reader.secret, headers, body: { name: canary, scopes: [] } }),
  );
  expectProblemShape(denied, 403, 'insufficient_scope');
  const manager = await tenant.key(['api_keys:manage']);
  const notAllowed = await call('not-allowed', (headers) =>
    t.http.post('/v1/api-keys', {
      key: manager.secret,
      headers,
      body: { name: canary, scopes: ['channels:manage'] },
    }),
  );
  expectProblemShape(notAllowed, 403, 'scope_not_allowed');

  return {
    tenant,
    ownerKeyId: await keyIdOf(tenant, key),
    readerKeyId: reader.id,
    createdId,
    rotatedToId,
    secrets: [
      tenant.testKey,
      tenant.liveKey,
      created.body.data.secret,
      rotated.body.data.secret,
      reader.secret,
      manager.secret,
    ],
    canary,
    requestIds,
    startedAt,
  };
}

async function auditLogs(query = '', key = story.tenant.testKey): Promise<AuditEntry[]> {
  const res = await t.http.get(`/v1/audit-logs?limit=100${query}`, { key });
  expect(res.status, res.text).toBe(200);
  assertNoSensitiveContent(res.text);
  return res.body.data;
}

function assertNoSensitiveContent(text: string) {
  for (const secret of story.secrets) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(12));
  }
  expect(text).not.toMatch(/svc_(test|live)_[0-9A-Za-z]{8}/);
  expect(text).not.toContain(story.canary);
}

describe('audit entries', () => {
  it('records every API-key action with actor, target, request id, ip prefix and environment', async () => {
    const entries = await auditLogs();
    const byRequest = (label: string) =>
      entries.filter((e) => e.requestId === story.requestIds[label]).map((e) => e.action);
    expect(byRequest('create')).toEqual(['api_key.created']);
    expect(byRequest('list')).toEqual(['api_key.read']);
    expect(byRequest('get')).toEqual(['api_key.read']);
    expect(byRequest('rotate').sort()).toEqual(['api_key.created', 'api_key.rotated']);
    expect(byRequest('revoke')).toEqual(['api_key.revoked']);
    expect(byRequest('insufficient')).toEqual(['auth.denied']);
    expect(byRequest('not-allowed')).toEqual(['auth.denied']);

    const one = (label: string, action: string) =>
      entries.find((e) => e.requestId === story.requestIds[label] && e.action === action)!;
    const ownerActor = { type: 'api_key', id: story.ownerKeyId };
    expect(one('create', 'api_key.created')).toMatchObject({
      actor: ownerActor,
      target: { type: 'api_key', id: story.createdId },
      ipPrefix: '127.0.0.0/24',
      environment: 'test',
    });
    expect(one('get', 'api_key.read').target).toEqual({ type: 'api_key', id: story.createdId });
    expect(one('rotate', 'api_key.rotated').target).toEqual({ type: 'api_key', id: story.createdId });
    expect(one('rotate', 'api_key.created').target).toEqual({ type: 'api_key', id: story.rotatedToId });
    expect(one('revoke', 'api_key.revoked').target).toEqual({ type: 'api_key', id: story.rotatedToId });
    expect(one('insufficient', 'auth.denied')).toMatchObject({
      actor: { type: 'api_key', id: story.readerKeyId },
      target: { type: 'route', id: 'POST /v1/api-keys' },
    });
    for (const e of entries) {
      expect(e.id).toMatch(/^aud_/);
      expect(e.environment).toBe('test');
      expect(e.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      if (e.requestId?.startsWith('rq-')) {
        expect(e.actor.type).toBe('api_key');
        expect(e.ipPrefix).toBe('127.0.0.0/24');
      }
    }
  });

  it('uses the generated X-Request-Id when the client sends none', async () => {
    const res = await t.http.get(`/v1/api-keys/${story.createdId}`, { key: story.tenant.testKey });
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^req_/);
    const entries = await auditLogs(`&targetId=${story.createdId}&action=api_key.read`);
    expect(entries[0].requestId).toBe(requestId);
  });

  it('records 403s from every route, including reads of the audit log itself', async () => {
    const noAudit = await story.tenant.key(['channels:read']);
    const res = await t.http.get('/v1/audit-logs', { key: noAudit.secret });
    expectProblemShape(res, 403, 'insufficient_scope');
    const entries = await auditLogs(`&actorId=${noAudit.id}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'auth.denied',
      target: { type: 'route', id: 'GET /v1/audit-logs' },
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('does not record 401s as a tenant’s entries (no principal, no organization)', async () => {
    const before = await auditLogs();
    await t.http.get('/v1/api-keys', { key: 'svc_test_nope' });
    expect(await auditLogs()).toHaveLength(before.length);
  });
});

describe('expand=names', () => {
  it('adds who acted and on what by their names, beside the ids, from one page of lookups', async () => {
    const channel = await t.http.post('/v1/channels', {
      key: story.tenant.testKey,
      body: { name: 'Names shop' },
    });
    expect(channel.status, channel.text).toBe(201);
    const res = await t.http.get('/v1/audit-logs?limit=100&expand=names', { key: story.tenant.testKey });
    expect(res.status, res.text).toBe(200);
    const entries: Array<AuditEntry & Record<'actorName' | 'actorEmail' | 'targetName', string | null>> =
      res.body.data;
    const [owner] = (
      (await rawSql(t.store).execute(
        sql`select email from members where id = ${story.tenant.ownerId}`,
      )) as unknown as { rows: Array<{ email: string }> }
    ).rows;
    const ownerKey = await t.http.get(`/v1/api-keys/${story.ownerKeyId}`, { key: story.tenant.testKey });
    const created = entries.find((e) => e.action === 'api_key.created' && e.target?.id === story.createdId)!;
    expect(created).toMatchObject({
      actor: { type: 'api_key', id: story.ownerKeyId },
      actorName: ownerKey.body.data.name,
      actorEmail: owner.email,
      target: { type: 'api_key', id: story.createdId },
      targetName: story.canary,
    });
    const made = entries.find((e) => e.action === 'channel.created')!;
    expect(made).toMatchObject({ target: { id: channel.body.data.id }, targetName: 'Names shop' });
    // A route has no name; the ids stay as they were.
    const denied = entries.find((e) => e.requestId === story.requestIds.insufficient)!;
    expect(denied.targetName).toBeNull();
    expect(denied.target).toEqual({ type: 'route', id: 'POST /v1/api-keys' });
    // Without expand, entries hold ids only, as the log stores them.
    const plain = await auditLogs();
    expect(plain.every((e) => !('actorName' in e) && !('targetName' in e))).toBe(true);
    // A cursor of one serves the other: the names change what an entry shows, not which.
    const page = await t.http.get('/v1/audit-logs?limit=1', { key: story.tenant.testKey });
    const next = await t.http.get(
      `/v1/audit-logs?limit=1&expand=names&cursor=${encodeURIComponent(page.body.meta.nextCursor)}`,
      { key: story.tenant.testKey },
    );
    expect(next.status, next.text).toBe(200);
    expect(next.body.data[0]).toHaveProperty('actorName');
  });
});

describe('filters and paging', () => {
  it('filters by action, actorId and targetId', async () => {
    const created = await auditLogs(`&action=api_key.created&actorId=${story.ownerKeyId}`);
    expect(created.map((e) => e.target?.id).sort()).toEqual([story.createdId, story.rotatedToId].sort());
    expect(created.every((e) => e.action === 'api_key.created')).toBe(true);

    const byReader = await auditLogs(`&actorId=${story.readerKeyId}`);
    expect(byReader.map((e) => e.action)).toEqual(['auth.denied']);

    const aboutCreated = await auditLogs(`&targetId=${story.createdId}`);
    expect(new Set(aboutCreated.map((e) => e.action))).toEqual(
      new Set(['api_key.created', 'api_key.read', 'api_key.rotated']),
    );
    expect(aboutCreated.every((e) => e.target?.id === story.createdId)).toBe(true);

    const combined = await auditLogs(`&targetId=${story.createdId}&action=api_key.rotated`);
    expect(combined).toHaveLength(1);
    expect(await auditLogs('&action=no.such.action')).toEqual([]);
  });

  it('filters by from/to, inclusive, at the whole-second resolution the API shows', async () => {
    const all = await auditLogs();
    const revoked = all.find((e) => e.action === 'api_key.revoked')!;
    const at = encodeURIComponent(revoked.occurredAt);
    const exactly = await auditLogs(`&from=${at}&to=${at}`);
    expect(exactly.map((e) => e.id)).toEqual([revoked.id]);

    const after = await auditLogs(`&from=${at}`);
    expect(after.every((e) => e.occurredAt >= revoked.occurredAt)).toBe(true);
    expect(after.map((e) => e.id)).toContain(revoked.id);
    const before = await auditLogs(`&to=${at}`);
    expect(before.every((e) => e.occurredAt <= revoked.occurredAt)).toBe(true);
    expect(before.length + after.length).toBe(all.length + 1);

    // The same instant written with an offset.
    const local = new Date(Date.parse(revoked.occurredAt) + 3_600_000).toISOString().slice(0, 19);
    const withOffset = await auditLogs(`&from=${encodeURIComponent(`${local}+01:00`)}&to=${at}`);
    expect(withOffset.map((e) => e.id)).toEqual([revoked.id]);
    for (const bad of ['yesterday', '2031-03-04', '2031-13-40T00:00:00Z']) {
      const res = await t.http.get(`/v1/audit-logs?from=${bad}`, { key: story.tenant.testKey });
      expectProblemShape(res, 422, 'validation_failed');
    }
  });

  it('pages newest first with a cursor bound to the filters', async () => {
    const all = await auditLogs();
    expect(all.length).toBeGreaterThan(4);
    const seen: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/v1/audit-logs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await t.http.get(query, { key: story.tenant.testKey });
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.meta.nextCursor;
    } while (cursor);
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    const times = seen.map((e) => e.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);

    const page = await t.http.get('/v1/audit-logs?limit=1&action=api_key.created', {
      key: story.tenant.testKey,
    });
    const next = page.body.meta.nextCursor;
    const other = await t.http.get(
      `/v1/audit-logs?limit=1&action=api_key.read&cursor=${encodeURIComponent(next)}`,
      { key: story.tenant.testKey },
    );
    expectProblemShape(other, 400, 'invalid_cursor');
  });
});

describe('isolation', () => {
  it('a live key sees only live entries; another organization sees none of these', async () => {
    await t.http.get('/v1/api-keys', { key: story.tenant.liveKey });
    const live = await auditLogs('', story.tenant.liveKey);
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((e) => e.environment === 'live')).toBe(true);
    const testIds = new Set((await auditLogs()).map((e) => e.id));
    expect(live.some((e) => testIds.has(e.id))).toBe(false);

    const other = await t.tenant();
    const theirs = await auditLogs('', other.testKey);
    expect(theirs.some((e) => testIds.has(e.id))).toBe(false);
    expect(await auditLogs(`&targetId=${story.createdId}`, other.testKey)).toEqual([]);
  });
});
