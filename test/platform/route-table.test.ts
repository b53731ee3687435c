import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAuth, type RouteTableEntry } from '../../src/platform/auth/auth.hooks.ts';
import { SCOPES, type Scope } from '../../src/platform/auth/scopes.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

/**
 * Walks every route the app registered and proves its declared scope is enforced: a key holding
 * every scope but that one is refused, a key holding it (of another organization) gets past auth.
 */
let t: TestApp;
let owner: Tenant;
let stranger: Tenant;
/** A real API key of `owner`, so `:id` routes of the api-keys module hit an existing foreign id. */
let ownersKeyId: string;

/** The contract's scope for the routes of §3 and §9; routes other modules add are checked generically. */
const CONTRACT_SCOPES: Record<string, Scope> = {
  'GET /v1/api-keys': 'api_keys:read',
  'POST /v1/api-keys': 'api_keys:manage',
  'GET /v1/api-keys/:id': 'api_keys:read',
  'POST /v1/api-keys/:id/rotate': 'api_keys:manage',
  'POST /v1/api-keys/:id/revoke': 'api_keys:manage',
  'GET /v1/audit-logs': 'audit:read:limited',
};

/** Id prefixes (contract §2) by the path segment a parameter follows, for plausible made-up ids. */
const PREFIX_BY_SEGMENT: Record<string, string> = {
  'api-keys': 'key',
  channels: 'ch',
  purposes: 'pur',
  technologies: 'tec',
  origins: 'ori',
  evidence: 'evt',
  events: 'evt',
  exports: 'exp',
  webhooks: 'whd',
  destinations: 'whd',
  'webhook-destinations': 'whd',
  deliveries: 'dlv',
  'audit-logs': 'aud',
  organizations: 'org',
  members: 'mem',
};

function fillParams(url: string): string {
  const segments = url.split('/');
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const parent = segments[i - 1];
      if (parent === 'api-keys') return ownersKeyId;
      const prefix = PREFIX_BY_SEGMENT[parent] ?? 'id';
      return `${prefix}_0000000000000000000000`;
    })
    .join('/');
}

function call(route: RouteTableEntry, key: string) {
  const path = fillParams(route.url);
  const withBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
  return t.http.request(route.method, path, { key, body: withBody ? {} : undefined });
}

const routes = () =>
  t.app.routeTable.filter(
    (r): r is RouteTableEntry & { auth: { scope: Scope } } => r.url.startsWith('/v1') && r.auth !== 'public',
  );

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  owner = await t.tenant();
  stranger = await t.tenant();
  ownersKeyId = (await owner.key(['channels:read'])).id;
});
afterAll(() => t.close());

describe('route table', () => {
  it('holds every API-key and audit route with the scope the contract gives it', () => {
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

  it('a key with exactly the declared scope, of another organization, gets past auth (404 on ids)', async () => {
    for (const route of routes()) {
      const only = await stranger.key([route.auth.scope]);
      const res = await call(route, only.secret);
      const label = `${route.method} ${route.url} → ${res.status} ${res.text.slice(0, 200)}`;
      expect([401, 403], label).not.toContain(res.status);
      expect(res.status, label).toBeLessThan(500);
      if (route.url.startsWith('/v1/api-keys/:id')) expectProblemShape(res, 404, 'not_found');
    }
  });

  it('the owner’s own key with that scope reaches the same api-keys resource (so the 404 above is isolation)', async () => {
    const res = await t.http.get(`/v1/api-keys/${ownersKeyId}`, { key: owner.testKey });
    expect(res.status).toBe(200);
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
