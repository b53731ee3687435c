import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UNFINISHED_EXPORTS } from '../../src/modules/exports/exports.service.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite } from '../helpers/sites.ts';
import { download, getExport, requestExport, startExportsApp } from './helpers.ts';

/**
 * Requests, reads, validation, scopes and isolation. No worker runs here: every export stays
 * queued. (The clock is further ahead than exports.test.ts's, so that file's worker never runs
 * these jobs on a shared PostgreSQL.)
 */
let t: TestApp;
let tenant: Tenant;
let other: Tenant;
let site: ReadySite;

/** The cap counts an organization's unfinished exports, and nothing runs here: one tenant per test that queues. */
const freshTenant = () => t.tenant();

beforeAll(async () => {
  t = await startExportsApp(40);
  tenant = await t.tenant();
  other = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

describe('POST /v1/exports', () => {
  it('202 with the queued export and its Location; defaults jsonl, no filters, no proofs', async () => {
    const tenant = await freshTenant();
    const created = await requestExport(t, tenant.testKey);
    expect(created).toEqual({
      id: expect.stringMatching(/^exp_[0-9A-Za-z]{22}$/),
      status: 'queued',
      format: 'jsonl',
      filters: { channelId: null, from: null, to: null },
      includeProofs: false,
      rowCount: null,
      byteSize: null,
      sha256: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      startedAt: null,
      completedAt: null,
      expiresAt: null,
      failureReason: null,
    });
    expect(await getExport(t, tenant.testKey, created.id)).toEqual(created);
  });

  it('keeps the filters, at whole seconds, inclusive', async () => {
    const created = await requestExport(t, tenant.testKey, {
      channelId: site.channelId,
      from: '2030-01-01T00:00:00.250Z',
      to: '2030-01-02T00:00:00+02:00',
      format: 'csv',
    });
    expect(created.format).toBe('csv');
    expect(created.filters).toEqual({
      channelId: site.channelId,
      from: '2030-01-01T00:00:00Z',
      to: '2030-01-01T22:00:00Z',
    });
  });

  it('file before success: 409 export_not_ready', async () => {
    const tenant = await freshTenant();
    const created = await requestExport(t, tenant.testKey);
    const problem = expectProblemShape(
      await download(t, tenant.testKey, created.id),
      409,
      'export_not_ready',
    );
    expect(problem.detail).toMatch(/queued/);
  });

  it('422 on bad bodies: from after to, bad dates, unknown format or members', async () => {
    const bad = [
      { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' },
      { from: 'yesterday' },
      { to: '2030-13-01T00:00:00Z' },
      { format: 'xml' },
      { includeProofs: 'yes' },
      { status: 'succeeded' },
      { channelId: '' },
    ];
    for (const body of bad) {
      const res = await t.http.post('/v1/exports', { key: tenant.testKey, body });
      expectProblemShape(res, 422, 'validation_failed');
    }
  });

  it('includeProofs needs JSONL (the tree head is a last JSON line); a CSV request is 422', async () => {
    const body = { includeProofs: true, format: 'csv' };
    const res = await t.http.post('/v1/exports', { key: tenant.testKey, body });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ path: '/includeProofs', message: 'needs format jsonl' }]);
    const proved = await requestExport(t, (await freshTenant()).testKey, { includeProofs: true });
    expect(proved.includeProofs).toBe(true);
  });

  it('a channel of another organization or environment, or none at all, is 404', async () => {
    const liveSite = await createReadySite(t, tenant.liveKey);
    const otherSite = await createReadySite(t, other.testKey);
    for (const channelId of [liveSite.channelId, otherSite.channelId, 'ch_doesnotexist']) {
      const res = await t.http.post('/v1/exports', { key: tenant.testKey, body: { channelId } });
      expectProblemShape(res, 404, 'not_found');
    }
  });

  it('replays an Idempotency-Key instead of queueing a second export', async () => {
    const tenant = await freshTenant();
    const headers = { 'idempotency-key': `exp-${Math.random()}` };
    const first = await t.http.post('/v1/exports', { key: tenant.testKey, body: {}, headers });
    const again = await t.http.post('/v1/exports', { key: tenant.testKey, body: {}, headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  // On the embedded store a read beside the idempotent request's open transaction waits forever:
  // the channel must be read in that transaction.
  it('replays an Idempotency-Key on an export of one channel', async () => {
    const tenant = await freshTenant();
    const { channelId } = await createReadySite(t, tenant.testKey);
    const headers = { 'idempotency-key': `exp-${Math.random()}` };
    const first = await t.http.post('/v1/exports', { key: tenant.testKey, body: { channelId }, headers });
    expect(first.status, first.text).toBe(202);
    const again = await t.http.post('/v1/exports', { key: tenant.testKey, body: { channelId }, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it(`caps unfinished exports at ${MAX_UNFINISHED_EXPORTS} per organization (429 rate_limited)`, async () => {
    const busy = await t.tenant();
    for (let i = 0; i < MAX_UNFINISHED_EXPORTS; i++)
      await requestExport(t, i % 2 ? busy.liveKey : busy.testKey);
    const res = await t.http.post('/v1/exports', { key: busy.testKey, body: {} });
    const problem = expectProblemShape(res, 429, 'rate_limited');
    expect(problem.detail).toMatch(/At most 3 exports may be queued or running/);
    expect(res.headers.get('retry-after')).toBe('60');
    // Other organizations are not affected.
    await requestExport(t, other.testKey);
  });
});

describe('GET /v1/exports', () => {
  it('lists newest first with cursor pages, only the caller’s organization and environment', async () => {
    const mine = await t.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push((await requestExport(t, mine.testKey)).id);
    }
    const first = await t.http.get('/v1/exports?limit=2', { key: mine.testKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const cursor = first.body.meta.nextCursor;
    const second = await t.http.get(`/v1/exports?limit=2&cursor=${encodeURIComponent(cursor)}`, {
      key: mine.testKey,
    });
    expect(second.body.data.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(second.body.meta.nextCursor).toBeNull();
    const live = await t.http.get('/v1/exports', { key: mine.liveKey });
    expect(live.body.data).toEqual([]);
    expectProblemShape(
      await t.http.get('/v1/exports?limit=0', { key: mine.testKey }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await t.http.get('/v1/exports?cursor=nope', { key: mine.testKey }),
      400,
      'invalid_cursor',
    );
  });
});

describe('scopes and isolation', () => {
  it('evidence:read lists and reads but cannot request or download', async () => {
    const tenant = await freshTenant();
    const created = await requestExport(t, tenant.testKey);
    const reader = await tenant.key(['evidence:read'], { role: 'analyst' });
    expect((await t.http.get('/v1/exports', { key: reader.secret })).status).toBe(200);
    expect((await getExport(t, reader.secret, created.id)).id).toBe(created.id);
    const post = await t.http.post('/v1/exports', { key: reader.secret, body: {} });
    expect(expectProblemShape(post, 403, 'insufficient_scope').detail).toMatch(/exports:create/);
    expectProblemShape(await download(t, reader.secret, created.id), 403, 'insufficient_scope');
  });

  it('exports:create requests and downloads but does not list or read', async () => {
    const tenant = await freshTenant();
    const creator = await tenant.key(['exports:create'], { role: 'developer' });
    const created = await requestExport(t, creator.secret);
    // Past the scope check: the file is simply not ready.
    expectProblemShape(await download(t, creator.secret, created.id), 409, 'export_not_ready');
    expectProblemShape(await t.http.get('/v1/exports', { key: creator.secret }), 403, 'insufficient_scope');
    const read = await t.http.get(`/v1/exports/${created.id}`, { key: creator.secret });
    expectProblemShape(read, 403, 'insufficient_scope');
  });

  it('no key or a bad key: 401 before anything else', async () => {
    expectProblemShape(
      await t.http.post('/v1/exports', { body: { format: 'xml' } }),
      401,
      'authentication_required',
    );
    const bad = await t.http.get('/v1/exports', { key: 'svc_test_nope' });
    expectProblemShape(bad, 401, 'invalid_api_key');
    const file = await fetch(`${t.baseUrl}/v1/exports/exp_x/file`);
    expect(file.status).toBe(401);
  });

  it('another organization’s or environment’s export is 404 on read and download', async () => {
    const tenant = await freshTenant();
    const created = await requestExport(t, tenant.testKey);
    for (const key of [other.testKey, tenant.liveKey]) {
      expectProblemShape(await t.http.get(`/v1/exports/${created.id}`, { key }), 404, 'not_found');
      expectProblemShape(await download(t, key, created.id), 404, 'not_found');
    }
    expectProblemShape(
      await t.http.get('/v1/exports/exp_unknown', { key: tenant.testKey }),
      404,
      'not_found',
    );
  });
});
