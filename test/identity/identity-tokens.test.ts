import { CompactSign } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { createIdentitySecret, identify, mintToken, nowS, unsignedToken } from './identity-helpers.ts';

/**
 * Every way an identity token can be wrong is one row: each is refused with 401
 * invalid_identity_token at POST …/identity and at POST …/preferences (where nothing is recorded),
 * through the real HTTP interface. Run on both stores (DATABASE_URL for PostgreSQL).
 */
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let other: ReadySite;
let secret: string;
let revokedSecret: string;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
  other = await createReadySite(t, tenant.testKey, { name: 'Other shop' });
  secret = (await createIdentitySecret(t, tenant.testKey, site.channelId)).secret;
  const revoked = await createIdentitySecret(t, tenant.testKey, site.channelId);
  revokedSecret = revoked.secret;
  // Accepted while active (so the keys are cached), refused from its revocation on (the rows below).
  const before = await identify(t, site.siteKey, await mintToken(t, revokedSecret, site.siteKey));
  expect(before.status, before.text).toBe(200);
  const res = await t.http.delete(`/v1/channels/${site.channelId}/identity-secrets/${revoked.id}`, {
    key: tenant.testKey,
  });
  expect(res.status, res.text).toBe(204);
});
afterAll(() => t?.close());

const DAY = 24 * 3600;

/** [why the token is wrong, how to make it]: each must be refused. */
const FAILURES: Array<[string, () => Promise<string> | string]> = [
  ['signed with a secret that is not the channel’s', () => mintToken(t, `${secret}x`, site.siteKey)],
  ['signed with a revoked secret of the channel', () => mintToken(t, revokedSecret, site.siteKey)],
  [
    'alg none, no signature',
    () => unsignedToken({ sub: 'account-1', aud: site.siteKey, iat: nowS(t), exp: nowS(t) + 60 }),
  ],
  [
    'alg none with a signature part',
    () => unsignedToken({ sub: 'account-1', aud: site.siteKey, iat: nowS(t), exp: nowS(t) + 60 }, 'c2ln'),
  ],
  ['HS512 instead of HS256', () => mintToken(t, secret, site.siteKey, {}, 'HS512')],
  ['HS384 instead of HS256', () => mintToken(t, secret, site.siteKey, {}, 'HS384')],
  ['expired', () => mintToken(t, secret, site.siteKey, { iat: nowS(t) - 3600, exp: nowS(t) - 60 })],
  [
    'iat in the future',
    () => mintToken(t, secret, site.siteKey, { iat: nowS(t) + 600, exp: nowS(t) + 3600 }),
  ],
  ['aud is another site’s key', () => mintToken(t, secret, other.siteKey)],
  ['aud missing', () => mintToken(t, secret, site.siteKey, { aud: undefined })],
  ['lifetime over 24 hours', () => mintToken(t, secret, site.siteKey, { exp: nowS(t) + DAY + 60 })],
  ['iat more than 24 hours ago', () => mintToken(t, secret, site.siteKey, { iat: nowS(t) - DAY - 60 })],
  ['iat missing', () => mintToken(t, secret, site.siteKey, { iat: undefined })],
  ['exp missing', () => mintToken(t, secret, site.siteKey, { exp: undefined })],
  ['exp not a number', () => mintToken(t, secret, site.siteKey, { exp: 'tomorrow' })],
  ['sub missing', () => mintToken(t, secret, site.siteKey, { sub: undefined })],
  ['sub empty', () => mintToken(t, secret, site.siteKey, { sub: '' })],
  ['sub over 200 characters', () => mintToken(t, secret, site.siteKey, { sub: 'a'.repeat(201) })],
  ['sub not a string', () => mintToken(t, secret, site.siteKey, { sub: 1842 })],
  ['not a JWT', () => 'not-a-jwt'],
  ['empty', () => ''],
  ['three parts that are not base64url JSON', () => 'abc.def.ghi'],
  [
    'claims that are not a JSON object',
    () =>
      new CompactSign(new TextEncoder().encode('[1,2]'))
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(secret)),
  ],
  [
    'claims edited after signing (another account)',
    async () => {
      const [header, , signature] = (await mintToken(t, secret, site.siteKey)).split('.');
      const claims = { sub: 'account-2', aud: site.siteKey, iat: nowS(t), exp: nowS(t) + 60 };
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    },
  ],
  ['over 4096 characters', () => mintToken(t, secret, site.siteKey, { pad: 'x'.repeat(4096) })],
];

/** What each refusal's detail says: the reason, so an integrator can fix their token. */
const DETAILS: Record<string, string> = {
  'signed with a secret that is not the channel’s': 'matches no active identity secret',
  'signed with a revoked secret of the channel': 'matches no active identity secret',
  'alg none, no signature': 'not a signed JWT',
  'alg none with a signature part': 'HS256',
  'HS512 instead of HS256': 'HS256',
  'HS384 instead of HS256': 'HS256',
  expired: 'expired',
  'iat in the future': 'iat is in the future',
  'aud is another site’s key': 'aud',
  'aud missing': 'aud',
  'lifetime over 24 hours': 'more than 24 hours after iat',
  'iat more than 24 hours ago': 'iat is more than 24 hours ago',
  'iat missing': 'iat claim is missing',
  'exp missing': 'exp claim is missing',
  'exp not a number': 'exp claim is invalid',
  'sub missing': 'sub claim is missing',
  'sub empty': 'sub must be',
  'sub over 200 characters': 'sub must be',
  'sub not a string': 'sub must be',
  'not a JWT': 'not a signed JWT',
  empty: 'not a signed JWT',
  'three parts that are not base64url JSON': 'not a well-formed',
  'claims that are not a JSON object': 'not a well-formed',
  'claims edited after signing (another account)': 'matches no active identity secret',
  'over 4096 characters': 'longer than 4096',
};

describe('identity tokens', () => {
  it.each(FAILURES)(
    'refused: %s (401 invalid_identity_token at …/identity and …/preferences)',
    async (why, make) => {
      const token = await make();
      const identified = await identify(t, site.siteKey, token);
      const problem = expectProblemShape(identified, 401, 'invalid_identity_token');
      expect(problem.detail).toContain(DETAILS[why]);
      expect(problem.detail).not.toContain(token || '\u0000');
      // The CORS headers let the page read why.
      expect(identified.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');

      const decided = await postPreferences(t, site.siteKey, preferencesBody(site, { identityToken: token }));
      expectProblemShape(decided, 401, 'invalid_identity_token');
    },
  );

  it('recorded nothing for any refused decision; a valid token, newest or rotated, is accepted', async () => {
    const events = await t.http.get(`/v1/evidence?channelId=${site.channelId}`, { key: tenant.testKey });
    expect(events.status).toBe(200);
    expect(events.body.data).toEqual([]);

    const valid = await mintToken(t, secret, site.siteKey, { aud: [site.siteKey] });
    const res = await identify(t, site.siteKey, valid);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ state: null });
    // A second active secret (a rotation): tokens of either are accepted.
    const next = await createIdentitySecret(t, tenant.testKey, site.channelId);
    expect((await identify(t, site.siteKey, await mintToken(t, next.secret, site.siteKey))).status).toBe(200);
    expect((await identify(t, site.siteKey, await mintToken(t, secret, site.siteKey))).status).toBe(200);
    // A token of a channel with no secret at all, and a token within the clock tolerance.
    expectProblemShape(
      await identify(t, other.siteKey, await mintToken(t, secret, other.siteKey)),
      401,
      'invalid_identity_token',
    );
    const skewed = await mintToken(t, secret, site.siteKey, { iat: nowS(t) + 3, exp: nowS(t) + 60 });
    expect((await identify(t, site.siteKey, skewed)).status).toBe(200);
  });

  it('the identify call is public but only from a registered origin, and answers its preflight', async () => {
    const token = await mintToken(t, secret, site.siteKey);
    expectProblemShape(await identify(t, site.siteKey, token, null), 403, 'origin_not_allowed');
    expectProblemShape(
      await identify(t, site.siteKey, token, 'https://evil.example'),
      403,
      'origin_not_allowed',
    );
    expectProblemShape(await identify(t, 'site_test_nope', token), 404, 'not_found');
    expectProblemShape(
      await t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
        body: { token, extra: 1 },
        headers: { origin: 'https://shop.example.com' },
      }),
      422,
      'validation_failed',
    );
    const preflight = await t.http.request('OPTIONS', `/v1/public/sites/${site.siteKey}/identity`, {
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
  });
});
