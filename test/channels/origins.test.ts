import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { auditActions, createChannel, startChannelsApp, walkPages } from './channel-helpers.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startChannelsApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

const addOrigin = (channelId: string, origin: string, key = tenant.testKey) =>
  t.http.post(`/v1/channels/${channelId}/origins`, { key, body: { origin } });

describe('POST /v1/channels/:id/origins', () => {
  it('stores the normalized origin; origins do not change configVersion', async () => {
    const channel = await createChannel(t, tenant.liveKey);
    const res = await addOrigin(channel.id, 'HTTPS://Shop.Example.COM:443/', tenant.liveKey);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^ori_[0-9A-Za-z]{22}$/),
      channelId: channel.id,
      origin: 'https://shop.example.com',
      status: 'active',
      createdAt: expect.stringMatching(/Z$/),
    });
    const wildcard = await addOrigin(channel.id, 'https://*.bücher.de', tenant.liveKey);
    expect(wildcard.body.data.origin).toBe('https://*.xn--bcher-kva.de');
    const read = await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.liveKey });
    expect(read.body.data.configVersion).toBe(1);
    expect(await auditActions(t, tenant.liveKey, res.body.data.id)).toEqual(['origin.created']);
  });

  it('invalid origins are 422 invalid_origin with the reason at /origin', async () => {
    const live = await createChannel(t, tenant.liveKey);
    for (const origin of [
      'https://example.com/path',
      'https://example.com?q=1',
      'https://example.com#f',
      'https://user:pw@example.com',
      'ftp://example.com',
      'example.com',
      'https://*.*.example.com',
      'http://shop.example.com',
    ]) {
      const res = await addOrigin(live.id, origin, tenant.liveKey);
      const problem = expectProblemShape(res, 422, 'invalid_origin');
      expect(problem.errors[0].path, origin).toBe('/origin');
      expect(problem.detail.length).toBeGreaterThan(0);
    }
    // http is fine for localhost on live channels, and for anything on test channels.
    expect((await addOrigin(live.id, 'http://localhost:3000', tenant.liveKey)).status).toBe(201);
    const test = await createChannel(t, tenant.testKey);
    expect((await addOrigin(test.id, 'http://shop.example.com')).status).toBe(201);
    // Schema errors stay validation_failed.
    const res = await t.http.post(`/v1/channels/${test.id}/origins`, {
      key: tenant.testKey,
      body: { origin: 1 },
    });
    expectProblemShape(res, 422, 'validation_failed');
    const extra = await t.http.post(`/v1/channels/${test.id}/origins`, {
      key: tenant.testKey,
      body: { origin: 'https://a.example.com', status: 'archived' },
    });
    expectProblemShape(extra, 422, 'validation_failed');
  });

  it('an origin already active after normalization is 409 origin_duplicate with instance = the origins path', async () => {
    const channel = await createChannel(t, tenant.testKey);
    expect((await addOrigin(channel.id, 'https://example.com')).status).toBe(201);
    const dup = await t.http.post(`/v1/channels/${channel.id}/origins`, {
      key: tenant.testKey,
      body: { origin: 'https://EXAMPLE.com:443' },
      headers: { 'x-request-id': 'req_dup' },
    });
    const problem = expectProblemShape(dup, 409, 'origin_duplicate');
    expect(problem.instance).toBe(`/v1/channels/${channel.id}/origins`);
    expect(problem.requestId).toBe('req_dup');
    // Another channel may hold the same origin.
    const other = await createChannel(t, tenant.testKey);
    expect((await addOrigin(other.id, 'https://example.com')).status).toBe(201);
  });

  it('concurrent inserts of the same origin: exactly one 201, the rest 409', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        addOrigin(channel.id, i % 2 ? 'https://race.example.com' : 'HTTPS://RACE.example.com:443'),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expectProblemShape(r, 409, 'origin_duplicate');
    const { items } = await walkPages(t, tenant.testKey, `/v1/channels/${channel.id}/origins`, 100);
    expect(items.map((o) => o.origin)).toEqual(['https://race.example.com']);
  });
});

describe('list and archive origins', () => {
  it('lists newest first across pages; archive once (409 after); an archived origin may be added again', async () => {
    const channel = await createChannel(t, tenant.testKey);
    const ids: string[] = [];
    for (const host of ['a', 'b', 'c']) {
      t.clock.advance(1000);
      ids.push((await addOrigin(channel.id, `https://${host}.example.com`)).body.data.id);
    }
    const { items, pages } = await walkPages(t, tenant.testKey, `/v1/channels/${channel.id}/origins`, 2);
    expect(pages).toBe(2);
    expect(items.map((o) => o.id)).toEqual([...ids].reverse());

    t.clock.advance(1000);
    const archived = await t.http.post(`/v1/channels/${channel.id}/origins/${ids[0]}/archive`, {
      key: tenant.testKey,
    });
    expect(archived.status).toBe(200);
    expect(archived.body.data.status).toBe('archived');
    const again = await t.http.post(`/v1/channels/${channel.id}/origins/${ids[0]}/archive`, {
      key: tenant.testKey,
      body: {},
    });
    expectProblemShape(again, 409, 'invalid_state');
    expect((await addOrigin(channel.id, 'https://a.example.com')).status).toBe(201);
    expect(await auditActions(t, tenant.testKey, ids[0])).toEqual(['origin.created', 'origin.archived']);
    expectProblemShape(
      await t.http.post(`/v1/channels/${channel.id}/origins/ori_nope/archive`, { key: tenant.testKey }),
      404,
      'not_found',
    );
  });

  it('the public endpoints take a browser on an active origin only, wildcards honoured', async () => {
    const channel = await createChannel(t, tenant.testKey);
    await addOrigin(channel.id, 'https://*.example.com');
    const exact = (await addOrigin(channel.id, 'https://example.org')).body.data;
    const decideFrom = async (origin: string) => {
      const res = await t.http.post(`/v1/public/sites/${channel.siteKey}/preferences`, {
        body: { subjectId: 'sub-origin-test', decisions: {}, configVersion: channel.configVersion },
        headers: { origin },
      });
      if (res.status === 403) expectProblemShape(res, 403, 'origin_not_allowed');
      else expect(res.status, res.text).toBe(201);
      return res.status === 201;
    };
    expect(await decideFrom('https://a.example.com')).toBe(true);
    expect(await decideFrom('https://example.com')).toBe(false);
    expect(await decideFrom('https://a.b.example.com')).toBe(false);
    expect(await decideFrom('https://example.org')).toBe(true);
    await t.http.post(`/v1/channels/${channel.id}/origins/${exact.id}/archive`, { key: tenant.testKey });
    expect(await decideFrom('https://example.org')).toBe(false);
  });
});
