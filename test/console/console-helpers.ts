import type { Role } from '../../src/platform/auth/scopes.ts';
import type { TestApp } from '../helpers/app.ts';

export const PASSWORD = 'correct horse battery staple';

/** A member of `organizationId` with a console password, added through the services as the CLI does. */
export async function memberWithPassword(
  t: TestApp,
  organizationId: string,
  role: Role,
  password = PASSWORD,
): Promise<{ id: string; email: string }> {
  const email = `${role}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const member = await t.store.tx((tx) =>
    t.app.services.organizations.addMember(tx, organizationId, email, role),
  );
  await t.store.tx((tx) => t.app.services.sessions.setPassword(tx, organizationId, member.id, password));
  return { id: member.id, email };
}

export interface SignedIn {
  cookie: string;
  csrf: string;
  setCookie: string;
  data: any;
}

/** Signs in over HTTP and returns the cookie pair to send back, the CSRF token and the session data. */
export async function signIn(t: TestApp, email: string, password = PASSWORD): Promise<SignedIn> {
  const response = await t.http.post('/console/api/sign-in', { body: { email, password } });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  return {
    cookie: setCookie.split(';')[0],
    csrf: response.body.data.csrfToken,
    setCookie,
    data: response.body.data,
  };
}

/** Headers of a console call: the cookie, and the CSRF token unless told otherwise. */
export const asMember = (s: SignedIn, options: { csrf?: boolean } = {}) => ({
  cookie: s.cookie,
  ...(options.csrf === false ? {} : { 'x-csrf-token': s.csrf }),
});
