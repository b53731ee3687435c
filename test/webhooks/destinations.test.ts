import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/platform/auth/scopes.ts';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { type Receiver, startReceiver } from './receiver.ts';

/** Destinations over HTTP: shapes, validation, SSRF refusals, scopes, isolation, and no secret leaks. */
let t: TestApp;
let receiver: Receiver;
let org: Tenant;
const logLines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  t = await startTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    logger: { level: 'trace', stream },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  org = await t.tenant();
});

const create = (body: unknown, key = org.testKey) => t.http.post('/v1/webhook-destinations', { key, body });

describe('webhook destinations', () => {
  it('creates with defaults, shows the secret once, reads, lists and patches', async () => {
    const res = await create({ url: receiver.url });
    expect(res.status, res.text).toBe(201);
    const created = res.body.data;
    expect(res.headers.get('location')).toBe(`/v1/webhook-destinations/${created.id}`);
    expect(created).toMatchObject({
      url: receiver.url,
      description: null,
      eventTypes: ['*'],
      status: 'enabled',
      disabledReason: null,
      environment: 'test',
    });
    expect(created.id).toMatch(/^whd_[0-9A-Za-z]{22}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const read = await t.http.get(`/v1/webhook-destinations/${created.id}`, { key: org.testKey });
    expect(read.body.data).not.toHaveProperty('secret');
    const { secret: _secret, ...withoutSecret } = created;
    expect(read.body.data).toEqual(withoutSecret);

    const patched = await t.http.patch(`/v1/webhook-destinations/${created.id}`, {
      key: org.testKey,
      body: { description: 'CRM', eventTypes: ['channel.created', 'channel.created', 'api_key.revoked'] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      description: 'CRM',
      eventTypes: ['channel.created', 'api_key.revoked'],
    });

    t.clock.advance(1000); // newest first needs a later createdAt (the test clock stands still)
    await create({ url: receiver.url, description: 'second' });
    const list = await t.http.get('/v1/webhook-destinations?limit=1', { key: org.testKey });
    expect(list.body.data.map((d: any) => d.description)).toEqual(['second']);
    const next = await t.http.get(`/v1/webhook-destinations?limit=1&cursor=${list.body.meta.nextCursor}`, {
      key: org.testKey,
    });
    expect(next.body.data.map((d: any) => d.id)).toEqual([created.id]);
    expect(next.body.meta.nextCursor).toBeNull();
  });

  it('refuses unknown event types, a lone "*" mixed with types, unknown members, a missing url', async () => {
    const unknown = expectProblemShape(
      await create({ url: receiver.url, eventTypes: ['channel.created', 'evidence.deleted'] }),
      422,
      'validation_failed',
    );
    expect(unknown.errors).toEqual([{ path: '/eventTypes/1', message: expect.any(String) }]);
    expectProblemShape(
      await create({ url: receiver.url, eventTypes: ['*', 'channel.created'] }),
      422,
      'validation_failed',
    );
    expectProblemShape(await create({ url: receiver.url, eventTypes: [] }), 422, 'validation_failed');
    expectProblemShape(await create({ url: receiver.url, secret: 'whsec_x' }), 422, 'validation_failed');
    expectProblemShape(await create({}), 422, 'validation_failed');
  });

  it('live destinations must be https and public even with WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    const http = expectProblemShape(
      await create({ url: 'http://93.184.215.14/hook' }, org.liveKey),
      422,
      'invalid_destination',
    );
    expect(http.detail).toContain('https');
    expectProblemShape(
      await create({ url: 'https://127.0.0.1/hook' }, org.liveKey),
      422,
      'invalid_destination',
    );
    expectProblemShape(await create({ url: 'https://[::1]/hook' }, org.liveKey), 422, 'invalid_destination');
    // IPv6 forms reaching IPv4 hosts: mapped and translated (whatever they embed), local-use NAT64,
    // well-known NAT64 and 6to4 of private addresses, IPv4-compatible, Teredo, and everything outside
    // global unicast space.
    for (const address of [
      '::ffff:8.8.8.8',
      '::ffff:7f00:1',
      '::ffff:0:a00:1',
      '64:ff9b:1::808:808',
      '64:ff9b::a9fe:a9fe',
      '2002:a00:1::1',
      '::a00:1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // Reserved ::/8 space that no special-purpose list names (reaches loopback on some stacks).
      '::ffff:0:0:7f00:1',
    ]) {
      const refused = await create({ url: `https://[${address}]/hook` }, org.liveKey);
      expectProblemShape(refused, 422, 'invalid_destination');
    }
    const nat64 = await create({ url: 'https://[64:ff9b::5db8:d70e]/hook' }, org.liveKey);
    expect(nat64.status, nat64.text).toBe(201);
    const ok = await create({ url: 'https://93.184.215.14/hook' }, org.liveKey);
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.environment).toBe('live');
    const patch = await t.http.patch(`/v1/webhook-destinations/${ok.body.data.id}`, {
      key: org.liveKey,
      body: { url: 'https://169.254.169.254/latest/meta-data' },
    });
    expectProblemShape(patch, 422, 'invalid_destination');
  });

  it('refuses URLs with credentials, other schemes, or garbage', async () => {
    for (const url of [
      'http://user:pass@127.0.0.1/',
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      'not a url',
    ]) {
      const problem = expectProblemShape(await create({ url }), 422, 'invalid_destination');
      expect(problem.detail).not.toContain('pass@');
    }
  });

  it('rotate-secret defaults its grace, validates it, and audits without the secret', async () => {
    const { id } = (await create({ url: receiver.url })).body.data;
    const rotated = await t.http.post(`/v1/webhook-destinations/${id}/rotate-secret`, { key: org.testKey });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const bad = await t.http.post(`/v1/webhook-destinations/${id}/rotate-secret`, {
      key: org.testKey,
      body: { graceSeconds: 604_801 },
    });
    expectProblemShape(bad, 422, 'validation_failed');
    const audit = await t.http.get(`/v1/audit-logs?targetId=${id}`, { key: org.testKey });
    expect(audit.body.data.map((e: any) => e.action).sort()).toEqual([
      'webhook_destination.created',
      'webhook_destination.secret_rotated',
    ]);
  });

  it('scopes: webhooks:read reads, webhooks:write (or its alias webhooks:manage) writes', async () => {
    const { id } = (await create({ url: receiver.url })).body.data;
    const reader = await org.key(['webhooks:read']);
    const writer = await org.key(['webhooks:manage' as Scope]);
    expect((await t.http.get('/v1/webhook-destinations', { key: reader.secret })).status).toBe(200);
    expect((await t.http.get(`/v1/webhook-deliveries`, { key: reader.secret })).status).toBe(200);
    const denied = expectProblemShape(
      await create({ url: receiver.url }, reader.secret),
      403,
      'insufficient_scope',
    );
    expect(denied.detail).toContain('webhooks:write');
    for (const path of [`/${id}/disable`, `/${id}/rotate-secret`]) {
      expectProblemShape(
        await t.http.post(`/v1/webhook-destinations${path}`, { key: reader.secret }),
        403,
        'insufficient_scope',
      );
    }
    expect((await create({ url: receiver.url }, writer.secret)).status).toBe(201);
    expect((await t.http.post(`/v1/webhook-destinations/${id}/disable`, { key: writer.secret })).status).toBe(
      200,
    );
    const readDenied = await t.http.get('/v1/webhook-destinations', { key: writer.secret });
    expectProblemShape(readDenied, 403, 'insufficient_scope');
    expectProblemShape(await t.http.get('/v1/webhook-destinations'), 401, 'authentication_required');
  });

  it('another organization’s or environment’s destinations and deliveries are 404', async () => {
    const { id } = (await create({ url: receiver.url })).body.data;
    await t.http.post('/v1/channels', { key: org.testKey, body: { name: 'x' } });
    const [delivery] = (await t.http.get('/v1/webhook-deliveries', { key: org.testKey })).body.data;
    const stranger = await t.tenant();
    for (const key of [stranger.testKey, org.liveKey]) {
      for (const [method, path] of [
        ['GET', `/v1/webhook-destinations/${id}`],
        ['PATCH', `/v1/webhook-destinations/${id}`],
        ['POST', `/v1/webhook-destinations/${id}/rotate-secret`],
        ['POST', `/v1/webhook-destinations/${id}/disable`],
        ['POST', `/v1/webhook-destinations/${id}/enable`],
        ['GET', `/v1/webhook-deliveries/${delivery.id}`],
        ['POST', `/v1/webhook-deliveries/${delivery.id}/redeliver`],
      ]) {
        const res = await t.http.request(method, path, { key, body: method === 'GET' ? undefined : {} });
        expectProblemShape(res, 404, 'not_found');
      }
      expect((await t.http.get('/v1/webhook-destinations', { key })).body.data).toEqual([]);
      expect((await t.http.get(`/v1/webhook-deliveries?destinationId=${id}`, { key })).body.data).toEqual([]);
    }
  });

  it('no secret appears in a response other than create/rotate, a log line, an audit entry or the table', async () => {
    const created = (await create({ url: receiver.url })).body.data;
    const rotated = (
      await t.http.post(`/v1/webhook-destinations/${created.id}/rotate-secret`, {
        key: org.testKey,
        body: { graceSeconds: 60 },
      })
    ).body.data;
    await t.http.patch(`/v1/webhook-destinations/${created.id}`, {
      key: org.testKey,
      body: { description: 'd' },
    });
    await t.http.post(`/v1/webhook-destinations/${created.id}/disable`, { key: org.testKey });
    await t.http.post(`/v1/webhook-destinations/${created.id}/enable`, { key: org.testKey });
    await t.http.post('/v1/channels', { key: org.testKey, body: { name: 'x' } });
    const [delivery] = (await t.http.get('/v1/webhook-deliveries', { key: org.testKey })).body.data;

    const shown = [
      await t.http.get('/v1/webhook-destinations', { key: org.testKey }),
      await t.http.get(`/v1/webhook-destinations/${created.id}`, { key: org.testKey }),
      await t.http.get('/v1/webhook-deliveries', { key: org.testKey }),
      await t.http.get(`/v1/webhook-deliveries/${delivery.id}`, { key: org.testKey }),
      await t.http.get('/v1/audit-logs?limit=100', { key: org.testKey }),
    ].map((r) => r.text);
    const audit = JSON.parse(shown[4]).data.map((e: any) => e.action);
    expect(audit).toEqual(
      expect.arrayContaining([
        'webhook_destination.created',
        'webhook_destination.secret_rotated',
        'webhook_destination.updated',
        'webhook_destination.disabled',
        'webhook_destination.enabled',
      ]),
    );
    const rows = await rawSql(t.store).execute(
      sql`select * from webhook_destinations where id = ${created.id}`,
    );
    const everywhere = [...shown, ...logLines, JSON.stringify(rows)].join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of [created.secret, rotated.secret]) {
      expect(everywhere).not.toContain(secret);
      expect(everywhere).not.toContain(secret.slice(6)); // the key bytes' base64 on its own
    }
  });
});
