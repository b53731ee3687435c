import { SignJWT } from 'jose';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { SITE_ORIGIN } from '../helpers/sites.ts';

/** Creates an identity secret on the channel over the API; returns its id and secret. */
export async function createIdentitySecret(t: TestApp, key: string, channelId: string) {
  const res = await t.http.post(`/v1/channels/${channelId}/identity-secrets`, { key });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; secret: string; createdAt: string };
}

/** Seconds since 1970 on the app's clock: tokens are judged by it. */
export const nowS = (t: TestApp) => Math.floor(t.clock.now().getTime() / 1000);

/**
 * A token as a site's backend would sign it (jose, HS256, the secret's UTF-8 as key), valid for an
 * hour from the app's clock; `claims` replace or (undefined) remove the defaults.
 */
export function mintToken(
  t: TestApp,
  secret: string,
  audience: string,
  claims: Record<string, unknown> = {},
  alg = 'HS256',
): Promise<string> {
  const iat = nowS(t);
  const all: Record<string, unknown> = { sub: 'account-1', aud: audience, iat, exp: iat + 3600, ...claims };
  for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
  return new SignJWT(all).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

/** An unsigned token (`alg: none`), with `signature` as its third part. */
export function unsignedToken(claims: Record<string, unknown>, signature = ''): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.${signature}`;
}

/** POST …/identity as the SDK does, from the site's registered origin. */
export function identify(t: TestApp, siteKey: string, token: unknown, origin: string | null = SITE_ORIGIN) {
  return t.http.post(`/v1/public/sites/${siteKey}/identity`, {
    body: { token },
    headers: origin === null ? {} : { origin },
  });
}
