import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../src/platform/auth/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { asMember, memberWithPassword, PASSWORD, signIn } from './console-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
});
afterAll(() => t.close());

describe('console sessions', () => {
  it('signs in with an HttpOnly, SameSite=Strict cookie holding only a random token', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const s = await signIn(t, owner.email.toUpperCase());
    expect(s.setCookie).toMatch(
      /^cs_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    expect(s.setCookie).not.toMatch(/Secure/);
    expect(s.data).toMatchObject({
      member: { id: owner.id, email: owner.email, role: 'owner' },
      organization: { id: tenant.organizationId },
      environment: 'test',
      scopes: [...ROLE_SCOPES.owner],
    });
    const session = await t.http.get('/console/api/session', { headers: { cookie: s.cookie } });
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(session.body.data.csrfToken).toBe(s.csrf);
  });

  it('acts on /v1 with the role’s scopes, and audits the member as the actor', async () => {
    const tenant = await t.tenant();
    const analyst = await memberWithPassword(t, tenant.organizationId, 'analyst');
    const s = await signIn(t, analyst.email);
    expect(s.data.scopes).toEqual([...ROLE_SCOPES.analyst]);
    expect((await t.http.get('/v1/channels', { headers: asMember(s) })).status).toBe(200);
    const refused = await t.http.post('/v1/channels', { headers: asMember(s), body: { name: 'Shop' } });
    expectProblemShape(refused, 403, 'insufficient_scope');

    const developer = await memberWithPassword(t, tenant.organizationId, 'developer');
    const d = await signIn(t, developer.email);
    const created = await t.http.post('/v1/channels', { headers: asMember(d), body: { name: 'Shop' } });
    expect(created.status).toBe(201);
    expectProblemShape(
      await t.http.get('/v1/audit-logs', { headers: asMember(d) }),
      403,
      'insufficient_scope',
    );

    const log = await t.http.get(`/v1/audit-logs?action=channel.created`, { key: tenant.testKey });
    expect(log.body.data[0].actor).toEqual({ type: 'member', id: developer.id });
    const denied = await t.http.get('/v1/audit-logs?action=auth.denied', { key: tenant.testKey });
    expect(denied.body.data.map((e: any) => e.actor)).toContainEqual({ type: 'member', id: analyst.id });
  });

  it('issues API keys for the member, bounded by the role, and replays an Idempotency-Key per session', async () => {
    const tenant = await t.tenant();
    const analyst = await memberWithPassword(t, tenant.organizationId, 'analyst');
    const developer = await memberWithPassword(t, tenant.organizationId, 'developer');
    const a = await signIn(t, analyst.email);
    const d = await signIn(t, developer.email);
    const body = { name: 'CI', scopes: ['channels:read', 'evidence:read'] };
    const headers = { ...asMember(d), 'idempotency-key': 'create-ci-key' };
    const issued = await t.http.post('/v1/api-keys', { headers, body });
    expect(issued.status).toBe(201);
    expect(issued.body.data.memberId).toBe(developer.id);
    const replay = await t.http.post('/v1/api-keys', { headers, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.secret).toBe(issued.body.data.secret);
    // The key works as a bearer key, in the session's environment.
    const withKey = await t.http.get('/v1/channels', { key: issued.body.data.secret });
    expect(withKey.status).toBe(200);
    expect(issued.body.data.environment).toBe('test');
    // Beyond the role: 403 scope_not_allowed.
    const beyond = await t.http.post('/v1/api-keys', {
      headers: asMember(d),
      body: { name: 'x', scopes: ['audit:read:limited'] },
    });
    expectProblemShape(beyond, 403, 'scope_not_allowed');
    expectProblemShape(
      await t.http.post('/v1/api-keys', { headers: asMember(a), body }),
      403,
      'insufficient_scope',
    );
  });

  it('refuses a state change without the session’s CSRF token, on /v1 and on the console routes', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const s = await signIn(t, owner.email);
    for (const headers of [asMember(s, { csrf: false }), { ...asMember(s), 'x-csrf-token': 'forged' }]) {
      const refused = await t.http.post('/v1/channels', { headers, body: { name: 'Shop' } });
      const problem = expectProblemShape(refused, 401, 'authentication_required');
      expect(problem.detail).toMatch(/CSRF/);
      expectProblemShape(
        await t.http.post('/console/api/environment', { headers, body: { environment: 'live' } }),
        401,
        'authentication_required',
      );
    }
    // Another session's token does not do either: the token is bound to its session.
    const other = await signIn(t, owner.email);
    const crossed = { cookie: s.cookie, 'x-csrf-token': other.csrf };
    expectProblemShape(
      await t.http.post('/v1/channels', { headers: crossed, body: { name: 'Shop' } }),
      401,
      'authentication_required',
    );
    expect((await t.http.get('/v1/channels', { headers: asMember(s, { csrf: false }) })).status).toBe(200);
    const list = await t.http.get('/v1/channels', { key: tenant.testKey });
    expect(list.body.data).toHaveLength(0);
  });

  it('switches between test and live data', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const s = await signIn(t, owner.email);
    await t.http.post('/v1/channels', { headers: asMember(s), body: { name: 'Test shop' } });
    const live = await t.http.post('/console/api/environment', {
      headers: asMember(s),
      body: { environment: 'live' },
    });
    expect(live.body.data.environment).toBe('live');
    await t.http.post('/v1/channels', { headers: asMember(s), body: { name: 'Live shop' } });
    const names = async (key: string) =>
      (await t.http.get('/v1/channels', { key })).body.data.map((c: any) => c.name);
    expect(await names(tenant.testKey)).toEqual(['Test shop']);
    expect(await names(tenant.liveKey)).toEqual(['Live shop']);
    expect((await t.http.get('/v1/channels', { headers: asMember(s) })).body.data[0].siteKey).toMatch(
      /^site_live_/,
    );
  });

  it('expires after 2 idle hours and after 12 hours in all, and ends at sign-out', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const s = await signIn(t, owner.email);
    const read = () => t.http.get('/v1/api-keys', { headers: asMember(s) });
    t.clock.advance(119 * 60_000);
    expect((await read()).status).toBe(200);
    // Used a minute before the idle limit: the 2 hours start again, but never past 12 hours.
    for (let i = 0; i < 5; i++) {
      t.clock.advance(110 * 60_000);
      expect((await read()).status).toBe(200);
    }
    t.clock.advance(80 * 60_000); // 12 h 29 min after sign-in, 80 min after the last use
    expectProblemShape(await read(), 401, 'authentication_required');

    const idle = await signIn(t, owner.email);
    t.clock.advance(2 * 60 * 60_000);
    expectProblemShape(
      await t.http.get('/v1/api-keys', { headers: asMember(idle) }),
      401,
      'authentication_required',
    );

    const active = await signIn(t, owner.email);
    const out = await t.http.post('/console/api/sign-out', { headers: asMember(active) });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^cs_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/,
    );
    expectProblemShape(
      await t.http.get('/v1/api-keys', { headers: asMember(active) }),
      401,
      'authentication_required',
    );
    expectProblemShape(
      await t.http.get('/console/api/session', { headers: asMember(active) }),
      401,
      'authentication_required',
    );
    const log = await t.http.get('/v1/audit-logs?action=member.signed_out', { key: tenant.testKey });
    expect(log.body.data[0].actor).toEqual({ type: 'member', id: owner.id });
  });

  it('ends every session when the password changes', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const s = await signIn(t, owner.email);
    await t.store.tx((tx) =>
      t.app.services.sessions.setPassword(tx, tenant.organizationId, owner.email, 'another long password'),
    );
    expectProblemShape(
      await t.http.get('/v1/channels', { headers: asMember(s) }),
      401,
      'authentication_required',
    );
    await signIn(t, owner.email, 'another long password');
  });

  it('gives one failure message whichever of email and password is wrong', async () => {
    const tenant = await t.tenant();
    const owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const noPassword = await t.store.tx((tx) =>
      t.app.services.organizations.addMember(
        tx,
        tenant.organizationId,
        `np-${Date.now()}@example.com`,
        'owner',
      ),
    );
    const attempts = [
      { email: owner.email, password: 'wrong password here' },
      { email: 'nobody@example.com', password: PASSWORD },
      { email: noPassword.email, password: PASSWORD },
    ];
    const details = new Set<string>();
    for (const body of attempts) {
      const response = await t.http.post('/console/api/sign-in', { body });
      const problem = expectProblemShape(response, 401, 'authentication_required');
      expect(response.headers.get('set-cookie')).toBeNull();
      details.add(problem.detail);
    }
    expect([...details]).toEqual(['Email or password is incorrect.']);
    // The same session principal is never reached through a bearer header: keys stay as they were.
    expectProblemShape(
      await t.http.get('/v1/channels', { headers: { authorization: 'Bearer nope', cookie: 'cs_session=x' } }),
      401,
      'invalid_api_key',
    );
  });

  it('asks for the organization when the email has a password in several', async () => {
    const [one, two] = [await t.tenant(), await t.tenant()];
    const email = `shared-${Date.now()}@example.com`;
    for (const org of [one, two]) {
      const m = await t.store.tx((tx) =>
        t.app.services.organizations.addMember(tx, org.organizationId, email, 'analyst'),
      );
      await t.store.tx((tx) => t.app.services.sessions.setPassword(tx, org.organizationId, m.id, PASSWORD));
    }
    const ask = await t.http.post('/console/api/sign-in', { body: { email, password: PASSWORD } });
    expectProblemShape(ask, 422, 'validation_failed');
    expect(ask.body.organizations.map((o: any) => o.id).sort()).toEqual(
      [one.organizationId, two.organizationId].sort(),
    );
    const chosen = await t.http.post('/console/api/sign-in', {
      body: { email, password: PASSWORD, organizationId: two.organizationId },
    });
    expect(chosen.body.data.organization.id).toBe(two.organizationId);
  });
});

describe('console sign-in limits and cookies under https', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({
      env: { SIGN_IN_RATE_LIMIT_PER_MINUTE: '3', BASE_URL: 'https://console.example.com' },
      store: t.store,
    });
  });
  afterAll(() => limited.close());

  it('limits attempts per email and per address, and marks the cookie Secure', async () => {
    const tenant = await limited.tenant();
    const owner = await memberWithPassword(limited, tenant.organizationId, 'owner');
    limited.clock.set(new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000));
    const ok = await signIn(limited, owner.email);
    expect(ok.setCookie).toMatch(/; Secure$/);
    for (let i = 0; i < 2; i++) {
      await limited.http.post('/console/api/sign-in', {
        body: { email: owner.email, password: 'wrong password!!' },
      });
    }
    const limitedResponse = await limited.http.post('/console/api/sign-in', {
      body: { email: owner.email, password: PASSWORD },
    });
    expectProblemShape(limitedResponse, 429, 'rate_limited');
    expect(Number(limitedResponse.headers.get('retry-after'))).toBeGreaterThan(0);
    limited.clock.advance(60_000);
    await signIn(limited, owner.email);
  });
});
