import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAuth, type RouteTableEntry } from '../../src/platform/auth/auth.hooks.ts';
import { SCOPES, type Scope } from '../../src/platform/auth/scopes.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape, type TestResponse } from '../helpers/http.ts';
import { createReadySite, recordConsent } from '../helpers/sites.ts';

/**
 * Walks every route the app registered and proves its declared scope is enforced: a key holding
 * every scope but that one is refused, a key holding it (of another organization) gets past auth.
 */
let t: TestApp;
let owner: Tenant;
let stranger: Tenant;
/** Real resources of `owner`, by the path segment their id follows: every `:id` names one that exists. */
const ownersIds: Record<string, string> = {};

/** The scope of each API-key and audit route; routes other modules add are checked generically. */
const CONTRACT_SCOPES: Record<string, Scope> = {
  'GET /v1/api-keys': 'api_keys:read',
  'POST /v1/api-keys': 'api_keys:manage',
  'GET /v1/api-keys/:id': 'api_keys:read',
  'POST /v1/api-keys/:id/rotate': 'api_keys:manage',
  'POST /v1/api-keys/:id/revoke': 'api_keys:manage',
  'GET /v1/audit-logs': 'audit:read:limited',
};

function fillParams(url: string): string {
  const segments = url.split('/');
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const id = ownersIds[segments[i - 1]];
      if (!id) throw new Error(`route-table test: no resource of the owner for ${url}; add one in beforeAll`);
      return id;
    })
    .join('/');
}

/**
 * Valid bodies for routes that validate one before they look their ids up (checks run in the order
 * authentication, scope, rate limit, validation).
 */
const VALID_BODIES: Record<string, unknown> = {
  'PATCH /v1/channels/:id': { name: 'Renamed' },
  'POST /v1/channels/:id/purposes': { key: 'extra', name: 'Extra' },
  'PATCH /v1/channels/:id/purposes/:purposeId': { name: 'Renamed' },
  'POST /v1/channels/:id/technologies': { name: 'Pixel' },
  'PATCH /v1/channels/:id/technologies/:technologyId': { name: 'Renamed' },
  'POST /v1/channels/:id/origins': { origin: 'https://other.example.com' },
  'POST /v1/channels/:id/apps': { appId: 'com.example.other', store: 'google' },
  'POST /v1/channels/:id/scans': { url: 'http://127.0.0.1:9/' },
  'PATCH /v1/webhook-destinations/:id': { description: 'Renamed' },
};

function call(route: RouteTableEntry, key: string) {
  const path = fillParams(route.url);
  const withBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
  const body = VALID_BODIES[`${route.method} ${route.url}`] ?? {};
  return t.http.request(route.method, path, { key, body: withBody ? body : undefined });
}

const routes = () =>
  t.app.routeTable.filter(
    (r): r is RouteTableEntry & { auth: { scope: Scope } } => r.url.startsWith('/v1') && r.auth !== 'public',
  );

/** Creates one of every resource kind for `owner`, over the API, and notes their ids. */
async function createOwnersResources() {
  const key = owner.testKey;
  const data = async (res: Promise<TestResponse>) => {
    const response = await res;
    expect(response.status, response.text).toBeLessThan(300);
    return response.body.data;
  };
  ownersIds['api-keys'] = (await owner.key(['channels:read'])).id;
  // A destination first, so the consent below makes a delivery too.
  ownersIds['webhook-destinations'] = (
    await data(t.http.post('/v1/webhook-destinations', { key, body: { url: 'http://127.0.0.1:9/hook' } }))
  ).id;
  const site = await createReadySite(t, key);
  const channel = `/v1/channels/${site.channelId}`;
  ownersIds.channels = site.channelId;
  ownersIds['config-versions'] = String(site.configVersion);
  ownersIds.purposes = (await data(t.http.get(`${channel}/purposes`, { key })))[0].id;
  ownersIds.origins = (await data(t.http.get(`${channel}/origins`, { key })))[0].id;
  ownersIds.technologies = (
    await data(t.http.post(`${channel}/technologies`, { key, body: { name: 'Tag manager' } }))
  ).id;
  // A tracker scan of a local page: queued (the worker never runs here), so only its id matters.
  await data(t.http.post(`${channel}/origins`, { key, body: { origin: 'http://127.0.0.1:9' } }));
  ownersIds.scans = (
    await data(t.http.post(`${channel}/scans`, { key, body: { url: 'http://127.0.0.1:9/' } }))
  ).id;
  // An app channel's app (docs/guides/apps.md): the archive route's record id.
  const appChannel = await data(t.http.post('/v1/channels', { key, body: { name: 'App', platform: 'app' } }));
  ownersIds.apps = (
    await data(
      t.http.post(`/v1/channels/${appChannel.id}/apps`, {
        key,
        body: { appId: 'com.example.shop', store: 'apple' },
      }),
    )
  ).id;
  ownersIds['identity-secrets'] = (await data(t.http.post(`${channel}/identity-secrets`, { key }))).id;
  ownersIds.evidence = (await recordConsent(t, site)).id;
  ownersIds.exports = (await data(t.http.post('/v1/exports', { key, body: {} }))).id;
  ownersIds['webhook-deliveries'] = (await data(t.http.get('/v1/webhook-deliveries', { key })))[0].id;
}

beforeAll(async () => {
  t = await startTestApp({
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SCAN_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
  owner = await t.tenant();
  stranger = await t.tenant();
  await createOwnersResources();
});
afterAll(() => t.close());

describe('route table', () => {
  it('holds every API-key and audit route with its documented scope', () => {
    const declared = Object.fromEntries(
      t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.auth === 'public' ? 'public' : r.auth.scope]),
    );
    expect(declared).toMatchObject(CONTRACT_SCOPES);
    for (const route of routes()) expect(SCOPES).toContain(route.auth.scope);
  });

  it('a key with every scope except the declared one is 403 insufficient_scope naming it', async () => {
    for (const route of routes()) {
      const { scope } = route.auth;
      const allBut = await stranger.key(SCOPES.filter((s) => s !== scope));
      const res = await call(route, allBut.secret);
      const label = `${route.method} ${route.url}`;
      expect(res.status, `${label}: ${res.text}`).toBe(403);
      const problem = expectProblemShape(res, 403, 'insufficient_scope');
      expect(problem.detail, label).toContain(scope);
    }
  });

  it('a key with exactly the declared scope, of another organization, gets past auth, and 404 on the owner’s ids', async () => {
    for (const route of routes()) {
      const only = await stranger.key([route.auth.scope]);
      const res = await call(route, only.secret);
      const label = `${route.method} ${route.url} → ${res.status} ${res.text.slice(0, 200)}`;
      expect([401, 403], label).not.toContain(res.status);
      expect(res.status, label).toBeLessThan(500);
      if (route.url.includes('/:')) expectProblemShape(res, 404, 'not_found');
    }
  });

  it('the owner’s own key reaches every one of those ids (so each 404 above is isolation)', async () => {
    for (const route of routes().filter((r) => r.method === 'GET' && r.url.includes('/:'))) {
      const res = await t.http.get(fillParams(route.url), { key: owner.testKey });
      // A proof before the first seal, or a file before the export ran, is 409: found, not ready.
      expect([200, 409], `${route.url} → ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
    }
  });
});

describe('installAuth', () => {
  const build = () => {
    const app = Fastify();
    const routeTable: RouteTableEntry[] = [];
    installAuth(app, { authenticate: async () => null, routeTable });
    return { app, routeTable };
  };

  it('refuses a /v1 route that declares no auth, so nothing is public by omission', async () => {
    const { app } = build();
    const register = async () => {
      app.get('/v1/forgotten', async () => ({ ok: true }));
      await app.ready();
    };
    await expect(register()).rejects.toThrow(/GET \/v1\/forgotten declares no config\.auth/);
    await app.close().catch(() => {});
  });

  it('records declared routes (public ones too) and leaves non-/v1 routes alone', async () => {
    const { app, routeTable } = build();
    app.get('/healthz', async () => ({ ok: true }));
    app.get('/v1/public-thing', { config: { auth: 'public' } }, async () => ({ ok: true }));
    app.post('/v1/guarded', { config: { auth: { scope: 'channels:manage' } } }, async () => ({ ok: true }));
    await app.ready();
    expect(routeTable).toEqual([
      { method: 'GET', url: '/v1/public-thing', auth: 'public' },
      { method: 'POST', url: '/v1/guarded', auth: { scope: 'channels:manage' } },
    ]);
    await app.close();
  });
});
