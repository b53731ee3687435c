import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  auditActions,
  createChannel,
  decisionsFrom,
  startChannelsApp,
  walkPages,
} from './channel-helpers.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startChannelsApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('POST /v1/channels', () => {
  it('creates a channel with the create-body defaults', async () => {
    const res = await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'Shop' } });
    expect(res.status).toBe(201);
    const channel = res.body.data;
    expect(res.headers.get('location')).toBe(`/v1/channels/${channel.id}`);
    expect(Object.keys(channel).sort()).toEqual(
      [
        'id',
        'name',
        'description',
        'status',
        'environment',
        'siteKey',
        'privacyPolicy',
        'configVersion',
        'defaultLanguage',
        'regionRules',
        'consentMaxAgeDays',
        'rejectCooldownDays',
        'gppCmpId',
        'gppSections',
        'reopenControl',
        'tcf',
        'integrations',
        'firstPartyPath',
        'cookieDomain',
        'crossDomain',
        'imports',
        'platform',
        'createdAt',
        'updatedAt',
        'archivedAt',
      ].sort(),
    );
    // Region defaults: opt-in everywhere, a decision asked again after 180 days.
    expect(channel.regionRules).toEqual([{ regions: ['*'], regime: 'opt-in' }]);
    expect(channel.platform).toBe('web');
    expect(channel.consentMaxAgeDays).toBe(180);
    expect(channel.gppCmpId).toBeNull();
    expect(channel.gppSections).toBe('usnat');
    expect(channel.integrations).toEqual({ microsoftUet: false, microsoftClarity: false });
    expect(channel.tcf).toBeNull();
    expect(channel).toMatchObject({
      name: 'Shop',
      description: null,
      status: 'active',
      environment: 'test',
      privacyPolicy: { url: null, version: '1', retentionDays: 1825 },
      configVersion: 1,
      defaultLanguage: 'en',
      archivedAt: null,
    });
    expect(channel.id).toMatch(/^ch_[0-9A-Za-z]{22}$/);
    expect(channel.siteKey).toMatch(/^site_test_[0-9A-Za-z]{24}$/);
    expect(channel.createdAt).toMatch(DATE);
    expect(channel.updatedAt).toMatch(DATE);
    expect(await auditActions(t, tenant.testKey, channel.id)).toEqual(['channel.created']);
  });

  it('takes every optional field, and a live key makes a live channel', async () => {
    const body = {
      name: 'Blog',
      description: 'The blog',
      defaultLanguage: 'pt-BR',
      privacyPolicy: { url: 'https://example.com/privacy', version: '2026-01', retentionDays: 365 },
    };
    const res = await t.http.post('/v1/channels', { key: tenant.liveKey, body });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      ...body,
      environment: 'live',
      configVersion: 1,
    });
    expect(res.body.data.siteKey).toMatch(/^site_live_/);
  });

  it('rejects bad fields with 422 validation_failed and the path', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: 'x'.repeat(201) }, '/name'],
      [{ name: 42 }, '/name'],
      [{ name: 'x', description: 'd'.repeat(2001) }, '/description'],
      [{ name: 'x', defaultLanguage: 'english' }, '/defaultLanguage'],
      [{ name: 'x', defaultLanguage: 'EN' }, '/defaultLanguage'],
      [{ name: 'x', privacyPolicy: { retentionDays: 0 } }, '/privacyPolicy/retentionDays'],
      [{ name: 'x', privacyPolicy: { retentionDays: 3651 } }, '/privacyPolicy/retentionDays'],
      [{ name: 'x', privacyPolicy: { retentionDays: 1.5 } }, '/privacyPolicy/retentionDays'],
      [{ name: 'x', privacyPolicy: { url: 'ftp://example.com/p' } }, '/privacyPolicy/url'],
      [{ name: 'x', privacyPolicy: { url: 'not a url' } }, '/privacyPolicy/url'],
      [{ name: 'x', privacyPolicy: { version: '' } }, '/privacyPolicy/version'],
      [{ name: 'x', privacyPolicy: { other: 1 } }, '/privacyPolicy/other'],
      [{ name: 'x', siteKey: 'site_test_mine' }, '/siteKey'],
      [{ name: 'x', configVersion: 7 }, '/configVersion'],
      [{ name: 'x', status: 'archived' }, '/status'],
    ];
    for (const [body, path] of bad) {
      const res = await t.http.post('/v1/channels', { key: tenant.testKey, body });
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(
        problem.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it('gives every channel its own site key', async () => {
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) keys.add((await createChannel(t, tenant.testKey)).siteKey);
    expect(keys.size).toBe(5);
  });
});

describe('GET /v1/channels', () => {
  it('walks every page newest first without repeats, in the key’s environment only', async () => {
    const own = await t.tenant();
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1000);
      created.push((await createChannel(t, own.testKey, { name: `c${i}` })).id);
    }
    // Same second for the last two: the id breaks the tie.
    created.push((await createChannel(t, own.testKey, { name: 'same-second' })).id);
    await createChannel(t, own.liveKey, { name: 'live one' });

    const { items, pages } = await walkPages(t, own.testKey, '/v1/channels', 3);
    expect(pages).toBe(3);
    expect(items.map((c) => c.id).sort()).toEqual([...created].sort());
    expect(new Set(items.map((c) => c.id)).size).toBe(8);
    expect(items.every((c) => c.environment === 'test')).toBe(true);
    const dates = items.map((c) => c.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);

    const live = await walkPages(t, own.liveKey, '/v1/channels', 100);
    expect(live.items.map((c) => c.name)).toEqual(['live one']);
    const other = await walkPages(t, tenant.testKey, '/v1/channels', 100);
    expect(other.items.some((c) => created.includes(c.id))).toBe(false);
  });

  it('rejects a bad limit and a cursor of another list', async () => {
    expectProblemShape(
      await t.http.get('/v1/channels?limit=0', { key: tenant.testKey }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await t.http.get('/v1/channels?limit=101', { key: tenant.testKey }),
      422,
      'validation_failed',
    );
    await createChannel(t, tenant.testKey);
    await createChannel(t, tenant.testKey);
    const keys = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      body: { name: 'k', scopes: ['channels:read'] },
    });
    expect(keys.status).toBe(201);
    const keysPage = await t.http.get('/v1/api-keys?limit=1', { key: tenant.testKey });
    const foreign = keysPage.body.meta.nextCursor;
    expect(foreign).toBeTruthy();
    const res = await t.http.get(`/v1/channels?cursor=${encodeURIComponent(foreign)}`, {
      key: tenant.testKey,
    });
    expectProblemShape(res, 400, 'invalid_cursor');
    expectProblemShape(
      await t.http.get('/v1/channels?cursor=made-up', { key: tenant.testKey }),
      400,
      'invalid_cursor',
    );
  });
});

describe('GET and PATCH /v1/channels/:id', () => {
  it('reads one channel; unknown ids are 404', async () => {
    const channel = await createChannel(t, tenant.testKey, { name: 'Read me' });
    const res = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(channel);
    expectProblemShape(await t.http.get('/v1/channels/ch_nope', { key: tenant.testKey }), 404, 'not_found');
  });

  it('updates members partially; privacyPolicy is merged', async () => {
    const channel = await createChannel(t, tenant.testKey, {
      name: 'Before',
      description: 'old',
      privacyPolicy: { url: 'https://example.com/p', version: '3', retentionDays: 30 },
    });
    t.clock.advance(5000);
    const res = await t.http.patch(`/v1/channels/${channel.id}`, {
      key: tenant.testKey,
      body: { name: 'After', description: null, privacyPolicy: { retentionDays: 90 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'After',
      description: null,
      privacyPolicy: { url: 'https://example.com/p', version: '3', retentionDays: 90 },
      // Name, description and retention are not shown to visitors.
      configVersion: 1,
    });
    expect(res.body.data.updatedAt > channel.updatedAt).toBe(true);
    expect(res.body.data.createdAt).toBe(channel.createdAt);
    expect(await auditActions(t, tenant.testKey, channel.id)).toEqual(['channel.created', 'channel.updated']);
  });

  it('rejects unknown members, read-only fields and bad values', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ siteKey: 'x' }, '/siteKey'],
      [{ environment: 'live' }, '/environment'],
      [{ configVersion: 9 }, '/configVersion'],
      [{ name: '' }, '/name'],
      [{ name: null }, '/name'],
      [{ defaultLanguage: 'x' }, '/defaultLanguage'],
      [{ privacyPolicy: { retentionDays: 4000 } }, '/privacyPolicy/retentionDays'],
      [{ privacyPolicy: { extra: true } }, '/privacyPolicy/extra'],
    ];
    for (const [body, path] of bad) {
      const res = await t.http.patch(`/v1/channels/${channel.id}`, { key: tenant.testKey, body });
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
    expectProblemShape(
      await t.http.patch('/v1/channels/ch_nope', { key: tenant.testKey, body: { name: 'x' } }),
      404,
      'not_found',
    );
  });
});

describe('POST /v1/channels/:id/archive', () => {
  it('archives once; a second archive and any later change are 409 invalid_state', async () => {
    const channel = await createChannel(t, tenant.testKey);
    t.clock.advance(1000);
    const res = await t.http.post(`/v1/channels/${channel.id}/archive`, { key: tenant.testKey });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('archived');
    expect(res.body.data.archivedAt).toMatch(DATE);
    expect(res.body.data.configVersion).toBe(1);

    const again = await t.http.post(`/v1/channels/${channel.id}/archive`, { key: tenant.testKey, body: {} });
    expectProblemShape(again, 409, 'invalid_state');
    const changes: Array<[string, string, unknown]> = [
      ['PATCH', `/v1/channels/${channel.id}`, { name: 'x' }],
      ['POST', `/v1/channels/${channel.id}/purposes`, { key: 'analytics', name: 'A' }],
      ['POST', `/v1/channels/${channel.id}/technologies`, { name: 'T' }],
      ['POST', `/v1/channels/${channel.id}/origins`, { origin: 'https://example.com' }],
    ];
    for (const [method, path, body] of changes) {
      expectProblemShape(
        await t.http.request(method, path, { key: tenant.testKey, body }),
        409,
        'invalid_state',
      );
    }
    // Reads still work: the record stays.
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey });
    expect(read.body.data.status).toBe('archived');
    expect(await auditActions(t, tenant.testKey, channel.id)).toEqual([
      'channel.created',
      'channel.archived',
    ]);
  });

  it('rejects a non-empty body; an archived channel is gone for the public endpoints', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const bad = await t.http.post(`/v1/channels/${channel.id}/archive`, {
      key: tenant.testKey,
      body: { reason: 'x' },
    });
    expectProblemShape(bad, 422, 'validation_failed');
    // The public endpoints serve the active channel's configVersion 1 and know no version 2.
    const publicConfig = (siteKey: string) => t.http.get(`/v1/public/sites/${siteKey}/config`);
    const served = await publicConfig(channel.siteKey);
    expect(served.status).toBe(200);
    expect(served.body.data.configVersion).toBe(1);
    const decide = await decisionsFrom(t, tenant.testKey, channel);
    expectProblemShape(await decide(2), 422, 'validation_failed');
    expect((await decide(1)).status).toBe(201);
    await t.http.post(`/v1/channels/${channel.id}/archive`, { key: tenant.testKey });
    expectProblemShape(await publicConfig(channel.siteKey), 404, 'not_found');
    expectProblemShape(await decide(1), 404, 'not_found');
    expectProblemShape(await publicConfig('site_test_unknown'), 404, 'not_found');
  });
});
