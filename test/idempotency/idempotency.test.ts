import net from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advisoryLockId } from '../../src/platform/idempotency/fingerprint.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const newKeyBody = (name: string) => ({ name, scopes: ['channels:read'] });
let counter = 0;
const uniqueKey = () => `idem-${Date.now()}-${++counter}`;

function createKey(secret: string, body: unknown, idempotencyKey?: string) {
  return t.http.post('/v1/api-keys', {
    key: secret,
    body,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
}

async function keysNamed(tenant: Tenant, name: string): Promise<number> {
  const result = await rawSql(t.store).execute(
    sql`select count(*)::int as n from api_keys where organization_id = ${tenant.organizationId} and name = ${name}`,
  );
  return Number((result as unknown as { rows: { n: number }[] }).rows[0].n);
}

/** A POST /v1/api-keys written byte by byte, for header values fetch will not send. */
async function rawPost(secret: string, idempotencyKey: Buffer): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(newKeyBody('invalid'));
  const head = [
    'POST /v1/api-keys HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${secret}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  const request = Buffer.concat([
    Buffer.from(`${head}\r\nIdempotency-Key: `),
    idempotencyKey,
    Buffer.from(`\r\n\r\n${body}`),
  ]);
  const response = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(new URL(t.baseUrl).port), '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
  });
  const split = response.indexOf('\r\n\r\n');
  return { status: Number(response.split(' ')[1]), body: response.slice(split + 4) };
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function expectReplayOf(replay: TestResponse, first: TestResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.headers.get('original-request-id')).toBe(first.headers.get('x-request-id'));
  expect(first.headers.get('idempotent-replayed')).toBeNull();
}

describe('Idempotency-Key on POST', () => {
  it('replays the first status, body and Location, and creates the resource once', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, newKeyBody('replayed'), key);
    expect(first.status).toBe(201);
    const again = await createKey(tenant.testKey, newKeyBody('replayed'), key);
    expectReplayOf(again, first);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.body.data.secret).toBe(first.body.data.secret);
    expect(await keysNamed(tenant, 'replayed')).toBe(1);
  });

  it('never stores the returned API key secret in the clear', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, newKeyBody('sealed'), key);
    const result = await rawSql(t.store).execute(
      sql`select response_body, response_body_encrypted from idempotency_keys where key = ${key}`,
    );
    const [row] = (
      result as unknown as { rows: { response_body: string; response_body_encrypted: boolean }[] }
    ).rows;
    expect(row.response_body_encrypted).toBe(true);
    expect(row.response_body).not.toContain(first.body.data.secret);
    expect(row.response_body).not.toContain('sealed');
  });

  it('a body that differs only in member order and whitespace is the same request', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, { name: 'order', scopes: ['channels:read'] }, key);
    const again = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      rawBody: '{ "scopes": ["channels:read"],   "name": "order" }',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expectReplayOf(again, first);
  });

  it('the same key with another body or path is 422 idempotency_key_reused', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, newKeyBody('mismatch'), key);
    expect(first.status).toBe(201);
    const otherBody = await createKey(tenant.testKey, newKeyBody('mismatch-2'), key);
    expectProblemShape(otherBody, 422, 'idempotency_key_reused');
    const otherPath = await t.http.post(`/v1/api-keys/${first.body.data.id}/revoke`, {
      key: tenant.testKey,
      headers: { 'idempotency-key': key },
    });
    expectProblemShape(otherPath, 422, 'idempotency_key_reused');
    expect(await keysNamed(tenant, 'mismatch-2')).toBe(0);
    const revoked = await t.http.get(`/v1/api-keys/${first.body.data.id}`, { key: tenant.testKey });
    expect(revoked.body.data.status).toBe('active');
  });

  it('accepts the RFC 8941 quoted form as the same key as the bare form', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const quoted = await createKey(tenant.testKey, newKeyBody('quoted'), `"${key}"`);
    expect(quoted.status).toBe(201);
    const bare = await createKey(tenant.testKey, newKeyBody('quoted'), key);
    expectReplayOf(bare, quoted);
    const escaped = await createKey(tenant.testKey, newKeyBody('quoted-esc'), '"a\\"b\\\\c"');
    expect(escaped.status).toBe(201);
    const escapedBare = await createKey(tenant.testKey, newKeyBody('quoted-esc'), 'a"b\\c');
    expectReplayOf(escapedBare, escaped);
    expect(await keysNamed(tenant, 'quoted')).toBe(1);
  });

  it('rejects empty, too long, non-ASCII, control-character and badly quoted keys with 400', async () => {
    const tenant = await t.tenant();
    const bad = ['', 'x'.repeat(256), 'a\tb', '"open', '"a"b"', '"bad\\escape"', '""'];
    for (const value of bad) {
      const res = await createKey(tenant.testKey, newKeyBody('invalid'), value);
      expectProblemShape(res, 400, 'invalid_idempotency_key');
    }
    // fetch refuses to send these, so they go over a raw socket, as bytes.
    const nonAscii = await rawPost(tenant.testKey, Buffer.from('cl\xe9', 'latin1'));
    expect(nonAscii.status).toBe(400);
    expect(JSON.parse(nonAscii.body).code).toBe('invalid_idempotency_key');
    // Node's HTTP parser itself refuses other control characters in any header, before the app.
    for (const control of ['a\x01b', 'a\x7fb']) {
      expect((await rawPost(tenant.testKey, Buffer.from(control, 'latin1'))).status).toBe(400);
    }
    // Checked before the body (the body here is invalid too).
    const both = await createKey(tenant.testKey, { nope: 1 }, '');
    expectProblemShape(both, 400, 'invalid_idempotency_key');
    expect(await keysNamed(tenant, 'invalid')).toBe(0);
    const longest = await createKey(tenant.testKey, newKeyBody('invalid'), 'k'.repeat(255));
    expect(longest.status).toBe(201);
    const spaced = await createKey(tenant.testKey, newKeyBody('spaced'), 'order 42 / retry');
    expect(spaced.status).toBe(201);
  });

  it('requests without the header are not idempotent', async () => {
    const tenant = await t.tenant();
    await createKey(tenant.testKey, newKeyBody('plain'));
    await createKey(tenant.testKey, newKeyBody('plain'));
    expect(await keysNamed(tenant, 'plain')).toBe(2);
  });

  it('is scoped to the API key: another key with the same Idempotency-Key is independent', async () => {
    const tenant = await t.tenant();
    const other = await tenant.key(['api_keys:manage', 'channels:read']);
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, newKeyBody('scoped'), key);
    const second = await createKey(other.secret, newKeyBody('scoped'), key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.id).not.toBe(first.body.data.id);
    expect(await keysNamed(tenant, 'scoped')).toBe(2);
  });

  it('8 concurrent identical requests create exactly one resource; all get the same 201 or 409 in use', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => createKey(tenant.testKey, newKeyBody('concurrent'), key)),
    );
    expect(await keysNamed(tenant, 'concurrent')).toBe(1);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const res of created) expect(res.text).toBe(created[0].text);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const res of responses.filter((r) => r.status !== 201)) {
      expectProblemShape(res, 409, 'idempotency_key_in_use');
      expect(res.headers.get('retry-after')).toBe('1');
    }
    // On PGlite transactions take turns, so the duplicates wait and replay rather than get 409.
    if (t.store.kind === 'embedded') expect(created).toHaveLength(8);
  });

  it('stores a 4xx and replays it, body included, without running the handler again', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, { name: 'bad', scopes: ['no:such'] }, key);
    expectProblemShape(first, 422, 'invalid_scopes');
    const again = await createKey(tenant.testKey, { name: 'bad', scopes: ['no:such'] }, key);
    expectReplayOf(again, first);
    // The stored problem names the request that produced it.
    expect(again.body.requestId).toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(again.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it('does not store a 5xx, and rolls its writes back: the retry runs again and succeeds', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    // A real failure inside the handler's transaction: audit rows of this organization are refused,
    // after the key row was inserted. Scoped to one organization so parallel test files are unaffected.
    const constraint = sql.identifier(`idem_test_break_${Date.now()}`);
    await rawSql(t.store).execute(
      sql`alter table audit_logs add constraint ${constraint} check (organization_id <> ${sql.raw(`'${tenant.organizationId}'`)}) not valid`,
    );
    let failed: TestResponse;
    try {
      failed = await createKey(tenant.testKey, newKeyBody('five-hundred'), key);
    } finally {
      await rawSql(t.store).execute(sql`alter table audit_logs drop constraint ${constraint}`);
    }
    expectProblemShape(failed, 500, 'internal_error');
    expect(await keysNamed(tenant, 'five-hundred')).toBe(0);
    const retry = await createKey(tenant.testKey, newKeyBody('five-hundred'), key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await keysNamed(tenant, 'five-hundred')).toBe(1);
  });

  it('after 24 hours the key is free again', async () => {
    const tenant = await t.tenant();
    const key = uniqueKey();
    const first = await createKey(tenant.testKey, newKeyBody('expiry'), key);
    t.clock.advance(24 * 3600 * 1000 + 1000);
    try {
      const later = await createKey(tenant.testKey, newKeyBody('expiry'), key);
      expect(later.status).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(later.body.data.id).not.toBe(first.body.data.id);
      const replay = await createKey(tenant.testKey, newKeyBody('expiry'), key);
      expectReplayOf(replay, later);
    } finally {
      t.clock.advance(-(24 * 3600 * 1000 + 1000));
    }
  });

  // On PGlite transactions run one at a time: a duplicate cannot start while the first runs (it
  // waits, then replays, as the concurrency test shows), so "in use" exists only on PostgreSQL.
  it.skipIf(skipWith(postgresOnly()))(
    'a duplicate while the first is still running is 409 in use, Retry-After 1',
    async () => {
      const tenant = await t.tenant();
      const caller = await tenant.key(['api_keys:manage', 'channels:read']);
      const target = await tenant.key(['channels:read']);
      const key = uniqueKey();
      const rotate = () =>
        t.http.post(`/v1/api-keys/${target.id}/rotate`, {
          key: caller.secret,
          body: { graceSeconds: 0 },
          headers: { 'idempotency-key': key },
        });
      // Hold the target's row so the first rotate stops mid-handler, holding its Idempotency-Key.
      const blocker = await t.store.pool!.connect();
      let first: Promise<TestResponse>;
      try {
        await blocker.query('begin');
        await blocker.query('select 1 from api_keys where organization_id = $1 and id = $2 for update', [
          tenant.organizationId,
          target.id,
        ]);
        first = rotate();
        const lock = BigInt.asUintN(64, BigInt(advisoryLockId(tenant.organizationId, caller.id, key)));
        await waitFor(async () => {
          const { rows } = await blocker.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
             and classid = $1::bigint::oid and objid = $2::bigint::oid and objsubid = 1`,
            [String(lock >> 32n), String(lock & 0xffffffffn)],
          );
          return rows[0].n === 1;
        });
        const duplicate = await rotate();
        expectProblemShape(duplicate, 409, 'idempotency_key_in_use');
        expect(duplicate.headers.get('retry-after')).toBe('1');
      } finally {
        await blocker.query('commit');
        blocker.release();
      }
      const done = await first;
      expect(done.status).toBe(201);
      expectReplayOf(await rotate(), done);
    },
  );

  it('GET ignores the header', async () => {
    const tenant = await t.tenant();
    const res = await t.http.get('/v1/api-keys', { key: tenant.testKey, headers: { 'idempotency-key': '' } });
    expect(res.status).toBe(200);
  });
});
