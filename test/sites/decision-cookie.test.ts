import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decisionCookieName,
  encodeDecisionCookie,
  readDecisionCookie,
  type StoredDecision,
} from '../../src/shared/decision-cookie.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { createIdentitySecret, identify, mintToken } from '../identity/identity-helpers.ts';

/**
 * The decision cookie the service sets itself (docs/guides/keep-the-choice.md): on a preferences
 * or identity answer that came through the channel's first-party path (the host it was sent to,
 * `X-Forwarded-Host` only under TRUST_PROXY, on the same site as the page's Origin), in the SDK's
 * own encoding, never on a cross-site answer, and never kept by a shared cache. A config or sdk.js
 * read through the path refreshes a valid cookie and never creates one.
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const SHOP = 'shop.example.com';
const DAY_S = 86_400;

beforeAll(async () => {
  t = await startTestApp({ env: { ...SITES_TEST_ENV, TRUST_PROXY: 'true' } });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  const patched = await t.http.patch(`/v1/channels/${site.channelId}`, {
    key: tenant.testKey,
    body: { firstPartyPath: '/consent' },
  });
  expect(patched.status, patched.text).toBe(200);
  site.configVersion = patched.body.data.configVersion;
});
afterAll(() => t?.close());

const through = (host = SHOP) => ({ 'x-forwarded-host': host, 'x-forwarded-proto': 'https' });
const setCookieOf = (res: { headers: Headers }) => res.headers.getSetCookie();

/** The one decision cookie of an answer: its value decoded and its attributes. */
function cookieOf(res: { headers: Headers }, siteKey = site.siteKey) {
  const all = setCookieOf(res);
  expect(all, 'one Set-Cookie').toHaveLength(1);
  const [pair, ...attributes] = all[0].split('; ');
  const value = readDecisionCookie(pair, siteKey);
  expect(value, pair).not.toBeNull();
  return { value: value as StoredDecision, attributes, header: all[0] };
}

/** A POST with a Host header of our choosing (fetch always sends the URL's). */
function postWithHost(
  baseUrl: string,
  path: string,
  host: string,
  headers: Record<string, string>,
  body: unknown,
) {
  const url = new URL(path, baseUrl);
  return new Promise<{ status: number; setCookie: string[] }>((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { ...headers, host, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, setCookie: res.headers['set-cookie'] ?? [] }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('POST …/preferences', () => {
  it('through the path: Set-Cookie with the decision as recorded, in the SDK’s encoding, never cached', async () => {
    const body = preferencesBody(site, {
      decisions: { analytics: 'granted', marketing: 'granted' },
      gpc: true,
    });
    const res = await postPreferences(t, site.siteKey, body, { headers: through() });
    expect(res.status, res.text).toBe(201);
    const { value, attributes, header } = cookieOf(res);
    expect(header.startsWith(`${decisionCookieName(site.siteKey)}=`)).toBe(true);
    // GPC kept marketing (gpcOptOut) denied: the cookie holds what was recorded, not what was sent.
    expect(value).toEqual({
      s: body.subjectId,
      d: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      v: site.configVersion,
      t: Date.parse(res.body.data.recordedAt),
    });
    expect(attributes).toEqual([`Max-Age=${180 * DAY_S}`, 'Path=/', 'SameSite=Lax', 'Secure']);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    // Byte for byte what the SDK would write for the same decision.
    expect(header.split('; ')[0]).toBe(`${decisionCookieName(site.siteKey)}=${encodeDecisionCookie(value)}`);

    const gpc = await postPreferences(t, site.siteKey, preferencesBody(site, { source: 'gpc', gpc: true }), {
      headers: through(),
    });
    expect(cookieOf(gpc).value.g).toBe(1);
  });

  it('never on a cross-site answer, nor for a channel without a path', async () => {
    const cases: Array<[string, Record<string, string>, string?]> = [
      ['the service’s own host', {}],
      ['another site’s host', through('evil.example.net')],
      ['a browser saying cross-site', { ...through(), 'sec-fetch-site': 'cross-site' }],
      ['the origin on another registrable domain', through('blog.example.org')],
    ];
    for (const [what, headers] of cases) {
      const res = await postPreferences(t, site.siteKey, preferencesBody(site), { headers });
      expect(res.status, `${what}: ${res.text}`).toBe(201);
      expect(setCookieOf(res), what).toEqual([]);
      expect(res.headers.get('cache-control'), what).toBeNull();
    }
    const plain = await createReadySite(t, tenant.testKey);
    const res = await postPreferences(t, plain.siteKey, preferencesBody(plain), { headers: through() });
    expect(res.status, res.text).toBe(201);
    expect(setCookieOf(res)).toEqual([]);
  });

  it('a refusal, a replayed answer and a reused key set no cookie', async () => {
    const refused = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, { decisions: { nope: 'granted' } }),
      {
        headers: through(),
      },
    );
    expectProblemShape(refused, 422, 'unknown_purpose');
    expect(setCookieOf(refused)).toEqual([]);

    const body = preferencesBody(site);
    const first = await postPreferences(t, site.siteKey, body, {
      headers: through(),
      idempotencyKey: 'k-cookie-1',
    });
    expect(first.status, first.text).toBe(201);
    expect(setCookieOf(first)).toHaveLength(1);
    const replay = await postPreferences(t, site.siteKey, body, {
      headers: through(),
      idempotencyKey: 'k-cookie-1',
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(setCookieOf(replay)).toEqual([]);
    const reused = await postPreferences(
      t,
      site.siteKey,
      { ...body, decisions: { analytics: 'denied' } },
      { headers: through(), idempotencyKey: 'k-cookie-1' },
    );
    expectProblemShape(reused, 422, 'idempotency_key_reused');
    expect(setCookieOf(reused)).toEqual([]);
  });

  it('Domain is the cookieDomain when the host is under it; Secure only on https pages', async () => {
    const res = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Subdomains', firstPartyPath: '/cs', cookieDomain: 'example.com' },
    });
    const channel = res.body.data;
    for (const origin of ['https://www.example.com', 'http://shop.example.com']) {
      await t.http.post(`/v1/channels/${channel.id}/origins`, { key: tenant.testKey, body: { origin } });
    }
    await t.http.post(`/v1/channels/${channel.id}/purposes`, {
      key: tenant.testKey,
      body: { key: 'analytics', name: 'Analytics' },
    });
    const version = (await t.http.get(`/v1/channels/${channel.id}`, { key: tenant.testKey })).body.data
      .configVersion;
    const body = () => ({
      subjectId: newSubjectId(),
      decisions: { analytics: 'granted' },
      configVersion: version,
    });
    const secure = await postPreferences(t, channel.siteKey, body(), {
      origin: 'https://www.example.com',
      headers: through('www.example.com'),
    });
    expect(cookieOf(secure, channel.siteKey).attributes).toEqual([
      `Max-Age=${180 * DAY_S}`,
      'Path=/',
      'SameSite=Lax',
      'Secure',
      'Domain=example.com',
    ]);
    const plainHttp = await postPreferences(t, channel.siteKey, body(), {
      origin: 'http://shop.example.com',
      headers: { 'x-forwarded-host': 'shop.example.com' },
    });
    expect(cookieOf(plainHttp, channel.siteKey).attributes).toEqual([
      `Max-Age=${180 * DAY_S}`,
      'Path=/',
      'SameSite=Lax',
      'Domain=example.com',
    ]);
  });
});

describe('without TRUST_PROXY', () => {
  it('X-Forwarded-Host is ignored; the Host header itself counts', async () => {
    const direct = await startTestApp({ env: SITES_TEST_ENV });
    try {
      const owner = await direct.tenant();
      const own = await createReadySite(direct, owner.testKey);
      await direct.http.patch(`/v1/channels/${own.channelId}`, {
        key: owner.testKey,
        body: { firstPartyPath: '/consent' },
      });
      const version = (await direct.http.get(`/v1/channels/${own.channelId}`, { key: owner.testKey })).body
        .data.configVersion;
      const body = preferencesBody({ ...own, configVersion: version });
      const forwarded = await postPreferences(direct, own.siteKey, body, { headers: through() });
      expect(forwarded.status, forwarded.text).toBe(201);
      expect(setCookieOf(forwarded)).toEqual([]);

      const viaHost = await postWithHost(
        direct.baseUrl,
        `/v1/public/sites/${own.siteKey}/preferences`,
        SHOP,
        { origin: SITE_ORIGIN },
        preferencesBody({ ...own, configVersion: version }),
      );
      expect(viaHost.status).toBe(201);
      expect(viaHost.setCookie).toHaveLength(1);
      expect(viaHost.setCookie[0]).toMatch(new RegExp(`^${decisionCookieName(own.siteKey)}=`));
    } finally {
      await direct.close();
    }
  });
});

describe('GET …/config and …/sdk.js through the path', () => {
  /** A decision cookie as the SDK keeps it, made `ageDays` ago on the app's clock. */
  const stored = (ageDays: number, overrides: Partial<StoredDecision> = {}): StoredDecision => ({
    s: 'a'.repeat(32),
    d: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
    v: site.configVersion,
    t: t.clock.now().getTime() - ageDays * DAY_S * 1000,
    ...overrides,
  });
  const cookieHeader = (value: StoredDecision | string) =>
    `other=1; ${decisionCookieName(site.siteKey)}=${typeof value === 'string' ? value : encodeDecisionCookie(value)}`;
  const reads = (headers: Record<string, string>) => [
    () => t.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers }),
    // An empty query string leaves the read to Fastify's route, not the fast path (config-fast-path.ts).
    () => t.http.get(`/v1/public/sites/${site.siteKey}/config?`, { headers }),
    () => t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`, { headers }),
  ];

  it('refresh a valid cookie: the same decision, its lifetime started again, the answer private', async () => {
    // Warm the site cache, so the first config read below is the fast path's.
    await t.http.get(`/v1/public/sites/${site.siteKey}/config?`);
    const value = stored(170);
    for (const read of reads({ ...through(), cookie: cookieHeader(value) })) {
      const res = await read();
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      const cookie = cookieOf(res);
      expect(cookie.value).toEqual(value);
      expect(cookie.attributes).toEqual([`Max-Age=${180 * DAY_S}`, 'Path=/', 'SameSite=Lax', 'Secure']);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    }
    // A 304 refreshes it too.
    const first = await t.http.get(`/v1/public/sites/${site.siteKey}/config`, { headers: through() });
    const etag = first.headers.get('etag') as string;
    const notModified = await t.http.get(`/v1/public/sites/${site.siteKey}/config`, {
      headers: { ...through(), cookie: cookieHeader(value), 'if-none-match': etag },
    });
    expect(notModified.status).toBe(304);
    expect(cookieOf(notModified).value).toEqual(value);
  });

  it('never create one, nor refresh one that is not a valid decision of the site, nor off the path', async () => {
    const hostile: Array<[string, Record<string, string>]> = [
      ['no cookie', through()],
      ['another site’s cookie only', { ...through(), cookie: 'cs_consent_site_test_other=x' }],
      ['not JSON', { ...through(), cookie: cookieHeader('%7Bnope') }],
      ['a bad percent escape', { ...through(), cookie: cookieHeader('%E0%A4%A') }],
      ['expired', { ...through(), cookie: cookieHeader(stored(181)) }],
      ['from the future', { ...through(), cookie: cookieHeader(stored(-2)) }],
      ['a version the channel never had', { ...through(), cookie: cookieHeader(stored(1, { v: 999 })) }],
      ['a short visitor id', { ...through(), cookie: cookieHeader(stored(1, { s: 'short' })) }],
      ['a long visitor id', { ...through(), cookie: cookieHeader(stored(1, { s: 'x'.repeat(129) })) }],
      [
        'a made-up decision',
        { ...through(), cookie: cookieHeader(stored(1, { d: { analytics: 'maybe' } as never })) },
      ],
      ['no time', { ...through(), cookie: cookieHeader(stored(1, { t: 'soon' as never })) }],
      ['the service’s own host', { cookie: cookieHeader(stored(1)) }],
      [
        'a host that is no registered origin',
        { ...through('www.example.net'), cookie: cookieHeader(stored(1)) },
      ],
      ['cross-site', { ...through(), 'sec-fetch-site': 'cross-site', cookie: cookieHeader(stored(1)) }],
    ];
    for (const [what, headers] of hostile) {
      for (const read of reads(headers)) {
        const res = await read();
        expect(res.status, what).toBe(200);
        expect(setCookieOf(res), what).toEqual([]);
        expect(res.headers.get('cache-control'), what).toMatch(/^public/);
      }
    }
    // Members the SDK never writes are not echoed back.
    const extra = await t.http.get(`/v1/public/sites/${site.siteKey}/config`, {
      headers: { ...through(), cookie: cookieHeader({ ...stored(1), x: '<script>' } as StoredDecision) },
    });
    expect(cookieOf(extra).value).toEqual(stored(1));
  });
});

describe('POST …/identity through the path', () => {
  it('sets the account’s choice unless the device’s own is newer', async () => {
    const { secret } = await createIdentitySecret(t, tenant.testKey, site.channelId);
    const token = await mintToken(t, secret, site.siteKey, { sub: `acct-${newSubjectId()}` });
    // No choice of the account yet: nothing to set.
    const none = await t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
      body: { token },
      headers: { origin: SITE_ORIGIN, ...through() },
    });
    expect(none.status, none.text).toBe(200);
    expect(none.body.data.state).toBeNull();
    expect(setCookieOf(none)).toEqual([]);

    const recorded = await postPreferences(
      t,
      site.siteKey,
      preferencesBody(site, {
        identityToken: token,
        decisions: { analytics: 'granted', marketing: 'granted' },
      }),
      { headers: through() },
    );
    expect(recorded.status, recorded.text).toBe(201);
    const accountAt = Date.parse(recorded.body.data.recordedAt);

    // An older device choice gives way to the account's; the device keeps its visitor id.
    const older = {
      s: 'b'.repeat(32),
      d: { analytics: 'denied' },
      v: site.configVersion,
      t: accountAt - 60_000,
    };
    const cookie = `${decisionCookieName(site.siteKey)}=${encodeDecisionCookie(older as StoredDecision)}`;
    const taken = await t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
      body: { token },
      headers: { origin: SITE_ORIGIN, ...through(), cookie },
    });
    expect(taken.status, taken.text).toBe(200);
    expect(cookieOf(taken).value).toEqual({
      s: older.s,
      d: taken.body.data.state.purposes,
      v: taken.body.data.state.configVersion,
      t: accountAt,
    });

    // A newer choice of the device's own stays: the SDK records it for the account.
    const newer = { ...older, t: accountAt + 60_000 };
    const kept = await t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
      body: { token },
      headers: {
        origin: SITE_ORIGIN,
        ...through(),
        cookie: `${decisionCookieName(site.siteKey)}=${encodeDecisionCookie(newer as StoredDecision)}`,
      },
    });
    expect(kept.status).toBe(200);
    expect(setCookieOf(kept)).toEqual([]);

    // Not through the path: the answer is the same, without a cookie.
    const direct = await identify(t, site.siteKey, token);
    expect(direct.body.data.state).toEqual(taken.body.data.state);
    expect(setCookieOf(direct)).toEqual([]);
  });
});
