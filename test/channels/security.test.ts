import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/platform/auth/scopes.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createChannel, createPurpose, createTechnology, startChannelsApp } from './channel-helpers.ts';

/**
 * Every channel route: no key 401, a bad key 401, a key holding every scope but the route's 403,
 * and the owner's ids seen by another organization or the owner's other environment 404.
 */
let t: TestApp;
let owner: Tenant;
let stranger: Tenant;
let ids: { channel: string; purpose: string; technology: string; origin: string };

interface Route {
  method: string;
  path: () => string;
  scope: Scope;
  body?: () => unknown;
}

const routes: Route[] = [
  { method: 'GET', path: () => '/v1/channels', scope: 'channels:read' },
  { method: 'POST', path: () => '/v1/channels', scope: 'channels:manage', body: () => ({ name: 'x' }) },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}`, scope: 'channels:read' },
  {
    method: 'PATCH',
    path: () => `/v1/channels/${ids.channel}`,
    scope: 'channels:manage',
    body: () => ({ name: 'y' }),
  },
  { method: 'POST', path: () => `/v1/channels/${ids.channel}/archive`, scope: 'channels:manage' },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/purposes`, scope: 'channels:read' },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/purposes`,
    scope: 'channels:manage',
    body: () => ({ key: 'fresh', name: 'F' }),
  },
  {
    method: 'GET',
    path: () => `/v1/channels/${ids.channel}/purposes/${ids.purpose}`,
    scope: 'channels:read',
  },
  {
    method: 'PATCH',
    path: () => `/v1/channels/${ids.channel}/purposes/${ids.purpose}`,
    scope: 'channels:manage',
    body: () => ({ name: 'n' }),
  },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/purposes/${ids.purpose}/archive`,
    scope: 'channels:manage',
  },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/technologies`, scope: 'channels:read' },
  // Tracker scans; the POST body names a page off the channel's origins (a 422 after the scope check).
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/scans`, scope: 'channels:read' },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/scans/scn_none`, scope: 'channels:read' },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/scans`,
    scope: 'channels:manage',
    body: () => ({ url: 'https://elsewhere.example.net/' }),
  },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/technologies`,
    scope: 'channels:manage',
    body: () => ({ name: 'T' }),
  },
  {
    method: 'GET',
    path: () => `/v1/channels/${ids.channel}/technologies/${ids.technology}`,
    scope: 'channels:read',
  },
  {
    method: 'PATCH',
    path: () => `/v1/channels/${ids.channel}/technologies/${ids.technology}`,
    scope: 'channels:manage',
    body: () => ({ name: 'n' }),
  },
  {
    method: 'DELETE',
    path: () => `/v1/channels/${ids.channel}/technologies/${ids.technology}`,
    scope: 'channels:manage',
  },
  // Identity secrets (signed-in visitors); their own tests cover a real secret's revocation.
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/identity-secrets`, scope: 'channels:read' },
  { method: 'POST', path: () => `/v1/channels/${ids.channel}/identity-secrets`, scope: 'channels:manage' },
  {
    method: 'DELETE',
    path: () => `/v1/channels/${ids.channel}/identity-secrets/isk_none`,
    scope: 'channels:manage',
  },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/origins`, scope: 'channels:read' },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/origins`,
    scope: 'channels:manage',
    body: () => ({ origin: 'https://new.example.com' }),
  },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/origins/${ids.origin}/archive`,
    scope: 'channels:manage',
  },
  // App ids (docs/guides/apps.md): the channel is a web one, so the POST is a 422 after the scope check.
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/apps`, scope: 'channels:read' },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/apps`,
    scope: 'channels:manage',
    body: () => ({ appId: 'com.example.shop', store: 'apple' }),
  },
  {
    method: 'POST',
    path: () => `/v1/channels/${ids.channel}/apps/app_none/archive`,
    scope: 'channels:manage',
  },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/config-versions`, scope: 'channels:read' },
  { method: 'GET', path: () => `/v1/channels/${ids.channel}/config-versions/1`, scope: 'channels:read' },
];

const label = (r: Route) => `${r.method} ${r.path()}`;
const send = (r: Route, key?: string) => t.http.request(r.method, r.path(), { key, body: r.body?.() });

beforeAll(async () => {
  t = await startChannelsApp();
  owner = await t.tenant();
  stranger = await t.tenant();
  const channel = await createChannel(t, owner.testKey);
  const purpose = await createPurpose(t, owner.testKey, channel.id, { key: 'ads', name: 'Ads' });
  const technology = await createTechnology(t, owner.testKey, channel.id, { name: 'Pixel' });
  const origin = await t.http.post(`/v1/channels/${channel.id}/origins`, {
    key: owner.testKey,
    body: { origin: 'https://example.com' },
  });
  ids = { channel: channel.id, purpose: purpose.id, technology: technology.id, origin: origin.body.data.id };
});
afterAll(() => t.close());

describe('channel routes: authentication and scope', () => {
  it('the route table declares the documented scope on each channel route', () => {
    const declared = new Map(
      t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.auth === 'public' ? 'public' : r.auth.scope]),
    );
    const channelRoutes = t.app.routeTable.filter((r) => r.url.startsWith('/v1/channels'));
    expect(channelRoutes.length).toBe(routes.length);
    expect(declared.get('POST /v1/channels/:id/archive')).toBe('channels:manage');
    expect(declared.get('GET /v1/channels/:id/config-versions/:version')).toBe('channels:read');
  });

  it('no key is 401 authentication_required; a bad key is 401 invalid_api_key', async () => {
    for (const route of routes) {
      const none = await send(route);
      expect(none.status, label(route)).toBe(401);
      expectProblemShape(none, 401, 'authentication_required');
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expectProblemShape(await send(route, 'svc_test_notarealkey'), 401, 'invalid_api_key');
    }
  });

  it('a key with every scope but the route’s is 403 insufficient_scope naming it', async () => {
    const keys = new Map<Scope, string>();
    for (const scope of ['channels:read', 'channels:manage'] as const) {
      keys.set(scope, (await owner.key(SCOPES.filter((s) => s !== scope))).secret);
    }
    for (const route of routes) {
      const res = await send(route, keys.get(route.scope));
      expect(res.status, label(route)).toBe(403);
      expect(expectProblemShape(res, 403, 'insufficient_scope').detail).toContain(route.scope);
    }
    // Nothing changed behind the 403s.
    const channel = await t.http.get(`/v1/channels/${ids.channel}`, { key: owner.testKey });
    expect(channel.body.data).toMatchObject({ status: 'active', name: 'Shop', configVersion: 3 });
  });

  it('an analyst key (channels:read only) reads but cannot change', async () => {
    const analyst = await owner.key(['channels:read'], { role: 'analyst' });
    expect((await t.http.get(`/v1/channels/${ids.channel}`, { key: analyst.secret })).status).toBe(200);
    const res = await t.http.patch(`/v1/channels/${ids.channel}`, {
      key: analyst.secret,
      body: { name: 'x' },
    });
    expectProblemShape(res, 403, 'insufficient_scope');
  });
});

describe('channel routes: isolation', () => {
  // Every route but the two on the collection (their isolation is the list test below).
  const withIds = () => routes.filter((r) => r.path() !== '/v1/channels');

  it('another organization’s ids are 404 not_found on every route', async () => {
    for (const route of withIds()) {
      const res = await send(route, stranger.testKey);
      expect(res.status, `${label(route)} ${res.text}`).toBe(404);
      expectProblemShape(res, 404, 'not_found');
    }
  });

  it('the owner’s live key gets 404 for test ids on every route', async () => {
    for (const route of withIds()) {
      const res = await send(route, owner.liveKey);
      expect(res.status, `${label(route)} ${res.text}`).toBe(404);
      expectProblemShape(res, 404, 'not_found');
    }
  });

  it('lists show neither another organization’s nor the other environment’s channels', async () => {
    for (const key of [stranger.testKey, owner.liveKey]) {
      const res = await t.http.get('/v1/channels?limit=100', { key });
      expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(ids.channel);
    }
  });

  it('after all that, the owner’s resources are untouched', async () => {
    const channel = await t.http.get(`/v1/channels/${ids.channel}`, { key: owner.testKey });
    expect(channel.body.data).toMatchObject({ status: 'active', name: 'Shop', configVersion: 3 });
    const technology = await t.http.get(`/v1/channels/${ids.channel}/technologies/${ids.technology}`, {
      key: owner.testKey,
    });
    expect(technology.status).toBe(200);
    const origins = await t.http.get(`/v1/channels/${ids.channel}/origins`, { key: owner.testKey });
    expect(origins.body.data.map((o: { origin: string; status: string }) => [o.origin, o.status])).toEqual([
      ['https://example.com', 'active'],
    ]);
  });
});
