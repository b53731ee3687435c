import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  auditActions,
  createChannel,
  createPurpose,
  createTechnology,
  startChannelsApp,
  walkPages,
} from './channel-helpers.ts';

let t: TestApp;
let tenant: Tenant;
let channel: any;

beforeAll(async () => {
  t = await startChannelsApp();
  tenant = await t.tenant();
  channel = await createChannel(t, tenant.testKey);
  await createPurpose(t, tenant.testKey, channel.id, { key: 'analytics', name: 'Analytics' });
  await createPurpose(t, tenant.testKey, channel.id, { key: 'ads', name: 'Ads' });
});
afterAll(() => t.close());

const base = () => `/v1/channels/${channel.id}/technologies`;
const version = async (id = channel.id) =>
  (await t.http.get(`/v1/channels/${id}`, { key: tenant.testKey })).body.data.configVersion as number;

describe('POST /v1/channels/:id/technologies', () => {
  it('creates a technology with the create-body defaults and bumps configVersion', async () => {
    const before = await version();
    const res = await t.http.post(base(), { key: tenant.testKey, body: { name: 'Tag manager' } });
    expect(res.status).toBe(201);
    const technology = res.body.data;
    expect(res.headers.get('location')).toBe(`${base()}/${technology.id}`);
    expect(technology).toEqual({
      id: expect.stringMatching(/^tec_[0-9A-Za-z]{22}$/),
      channelId: channel.id,
      name: 'Tag manager',
      vendor: null,
      purposeKeys: [],
      cookies: [],
      hosts: [],
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: technology.createdAt,
    });
    expect(await version()).toBe(before + 1);
    expect(await auditActions(t, tenant.testKey, technology.id)).toEqual(['technology.created']);
  });

  it('takes vendor, purposeKeys and cookies (domain and maxAgeSeconds default to null)', async () => {
    const technology = await createTechnology(t, tenant.testKey, channel.id, {
      name: 'Google Analytics',
      vendor: 'Google',
      purposeKeys: ['analytics'],
      cookies: [{ name: '_ga', domain: '.example.com', maxAgeSeconds: 63072000 }, { name: '_gid' }],
    });
    expect(technology).toMatchObject({
      vendor: 'Google',
      purposeKeys: ['analytics'],
      cookies: [
        { name: '_ga', domain: '.example.com', maxAgeSeconds: 63072000 },
        { name: '_gid', domain: null, maxAgeSeconds: null },
      ],
    });
  });

  it('purposeKeys naming no active purpose are 422 at /purposeKeys/<i>', async () => {
    const before = await version();
    const res = await t.http.post(base(), {
      key: tenant.testKey,
      body: { name: 'X', purposeKeys: ['analytics', 'nope', 'ads', 'other'] },
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual(['/purposeKeys/1', '/purposeKeys/3']);
    // A purpose of another channel does not count.
    const other = await createChannel(t, tenant.testKey);
    await createPurpose(t, tenant.testKey, other.id, { key: 'elsewhere', name: 'E' });
    const foreign = await t.http.post(base(), {
      key: tenant.testKey,
      body: { name: 'X', purposeKeys: ['elsewhere'] },
    });
    expect(expectProblemShape(foreign, 422, 'validation_failed').errors[0].path).toBe('/purposeKeys/0');
    expect(await version()).toBe(before);
  });

  it('rejects bad fields with 422 validation_failed and the path', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: 'x', vendor: '' }, '/vendor'],
      [{ name: 'x', purposeKeys: 'analytics' }, '/purposeKeys'],
      [{ name: 'x', purposeKeys: ['Analytics'] }, '/purposeKeys/0'],
      [{ name: 'x', purposeKeys: ['ads', 'ads'] }, '/purposeKeys'],
      [{ name: 'x', cookies: [{}] }, '/cookies/0/name'],
      [{ name: 'x', cookies: [{ name: 'c', maxAgeSeconds: -1 }] }, '/cookies/0/maxAgeSeconds'],
      [{ name: 'x', cookies: [{ name: 'c', path: '/' }] }, '/cookies/0/path'],
      [{ name: 'x', id: 'tec_mine' }, '/id'],
    ];
    for (const [body, path] of bad) {
      const res = await t.http.post(base(), { key: tenant.testKey, body });
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(problem.errors[0].path, JSON.stringify(body)).toBe(path);
    }
  });
});

describe('read, PATCH and DELETE a technology', () => {
  it('lists newest first across pages and reads one; unknown ids are 404', async () => {
    const own = await createChannel(t, tenant.testKey);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push((await createTechnology(t, tenant.testKey, own.id, { name: `T${i}` })).id);
    }
    const { items, pages } = await walkPages(t, tenant.testKey, `/v1/channels/${own.id}/technologies`, 2);
    expect(pages).toBe(2);
    expect(items.map((x) => x.id)).toEqual([...ids].reverse());
    const one = await t.http.get(`/v1/channels/${own.id}/technologies/${ids[0]}`, { key: tenant.testKey });
    expect(one.body.data.name).toBe('T0');
    expectProblemShape(
      await t.http.get(`/v1/channels/${own.id}/technologies/tec_nope`, { key: tenant.testKey }),
      404,
      'not_found',
    );
    expectProblemShape(
      await t.http.get(`/v1/channels/${channel.id}/technologies/${ids[0]}`, { key: tenant.testKey }),
      404,
      'not_found',
    );
  });

  it('patches given members, validating purposeKeys; bumps configVersion', async () => {
    const technology = await createTechnology(t, tenant.testKey, channel.id, {
      name: 'Pixel',
      vendor: 'Meta',
    });
    const before = await version();
    t.clock.advance(1000);
    const res = await t.http.patch(`${base()}/${technology.id}`, {
      key: tenant.testKey,
      body: { purposeKeys: ['ads'], cookies: [{ name: '_fbp', maxAgeSeconds: 7776000 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Pixel',
      vendor: 'Meta',
      purposeKeys: ['ads'],
      cookies: [{ name: '_fbp', domain: null, maxAgeSeconds: 7776000 }],
    });
    expect(await version()).toBe(before + 1);
    const cleared = await t.http.patch(`${base()}/${technology.id}`, {
      key: tenant.testKey,
      body: { vendor: null },
    });
    expect(cleared.body.data.vendor).toBeNull();
    // Hosts (what a tracker scan matches requests to) are stored lower case, without repeats.
    const hosts = await t.http.patch(`${base()}/${technology.id}`, {
      key: tenant.testKey,
      body: { hosts: ['Connect.Facebook.net', '*.facebook.com', 'connect.facebook.net:443'] },
    });
    expect(hosts.status, hosts.text).toBe(200);
    expect(hosts.body.data.hosts).toEqual([
      'connect.facebook.net',
      '*.facebook.com',
      'connect.facebook.net:443',
    ]);
    const read = await t.http.get(`${base()}/${technology.id}`, { key: tenant.testKey });
    expect(read.body.data.hosts).toEqual(hosts.body.data.hosts);
    expectProblemShape(
      await t.http.patch(`${base()}/${technology.id}`, {
        key: tenant.testKey,
        body: { hosts: ['https://connect.facebook.net/'] },
      }),
      422,
      'validation_failed',
    );
    const bad = await t.http.patch(`${base()}/${technology.id}`, {
      key: tenant.testKey,
      body: { purposeKeys: ['ads', 'ghost'] },
    });
    expect(expectProblemShape(bad, 422, 'validation_failed').errors[0].path).toBe('/purposeKeys/1');
    const unknown = await t.http.patch(`${base()}/${technology.id}`, {
      key: tenant.testKey,
      body: { channelId: 'ch_x' },
    });
    expect(expectProblemShape(unknown, 422, 'validation_failed').errors[0].path).toBe('/channelId');
    expectProblemShape(
      await t.http.patch(`${base()}/tec_nope`, { key: tenant.testKey, body: { name: 'x' } }),
      404,
      'not_found',
    );
  });

  it('deletes with 204 (then 404), bumps configVersion and is audited', async () => {
    const technology = await createTechnology(t, tenant.testKey, channel.id, { name: 'Gone soon' });
    const before = await version();
    t.clock.advance(1000);
    const res = await t.http.delete(`${base()}/${technology.id}`, { key: tenant.testKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await version()).toBe(before + 1);
    expectProblemShape(
      await t.http.get(`${base()}/${technology.id}`, { key: tenant.testKey }),
      404,
      'not_found',
    );
    expectProblemShape(
      await t.http.delete(`${base()}/${technology.id}`, { key: tenant.testKey }),
      404,
      'not_found',
    );
    expect(await auditActions(t, tenant.testKey, technology.id)).toEqual([
      'technology.created',
      'technology.deleted',
    ]);
  });

  it('changes on an archived channel are 409 invalid_state', async () => {
    const own = await createChannel(t, tenant.testKey);
    const technology = await createTechnology(t, tenant.testKey, own.id, { name: 'T' });
    await t.http.post(`/v1/channels/${own.id}/archive`, { key: tenant.testKey });
    const path = `/v1/channels/${own.id}/technologies/${technology.id}`;
    expectProblemShape(
      await t.http.patch(path, { key: tenant.testKey, body: { name: 'x' } }),
      409,
      'invalid_state',
    );
    expectProblemShape(await t.http.delete(path, { key: tenant.testKey }), 409, 'invalid_state');
    expect((await t.http.get(path, { key: tenant.testKey })).status).toBe(200);
  });
});
