import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { ROOT } from './markdown.ts';

// "Signed-in visitors" promises token code that works: its Node (jose) and Python (PyJWT) snippets are
// taken from the guide's text, run as written (node and python3, with the secret and site key in the
// environment, as the guide says), and the tokens they print must be accepted by the service, while
// the same token tampered with is refused. The PHP snippet (firebase/php-jwt) is shown in the guide
// but not run here: the test machines have no PHP; it is checked to sign the same claims with HS256.

const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/guides/signed-in-visitors.md'), 'utf8');
const ACCOUNT = 'user-1842';
const run = promisify(execFile);

/** The guide's fenced block whose text includes `marker`, without its fence lines. */
function codeBlock(marker: string): string {
  const block = [...GUIDE.matchAll(/```\w*\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((b) => b.includes(marker));
  if (!block) throw new Error(`no code block with ${marker} in the guide`);
  return block;
}

/** The JSON after `-d '` in the guide's curl that sends `method` to a URL ending in `pathEnd`. */
function curlBody(method: string, pathEnd: string): Record<string, unknown> {
  const curl = GUIDE.replace(/\\\n/g, ' ')
    .split('```')
    .flatMap((block) => block.split(/\n(?=curl )/))
    .find((c) => c.includes(`-X ${method}`) && c.includes(`${pathEnd}"`));
  const json = curl?.match(/-d '([\s\S]*?)'/)?.[1];
  if (!json) throw new Error(`no ${method} …${pathEnd} with a body in the guide`);
  return JSON.parse(json);
}

/**
 * Debian's python3-jwt installs into Debian's Python (/usr/bin/python3), which may not be the first
 * python3 on PATH (pyenv, a virtualenv): the first of them that imports jwt runs the snippet.
 */
function pythonWithJwt(): string | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import jwt'], { stdio: 'ignore' });
      return python;
    } catch {}
  }
  return null;
}
const PYTHON = pythonWithJwt();
// Skipped with the reason on a developer's machine; CI installs python3-jwt (.ci/run), so there it fails.
const pythonSkipReason =
  PYTHON === null && process.env.CI !== 'true'
    ? 'no python3 with the jwt module (apt-get install -y python3-jwt): the Python snippet is not run'
    : null;

/** What libfaketime reads (.ci/faked-clock.sh): passed on to the snippets when this run has them. */
const FAKED_CLOCK_VARIABLES = ['LD_PRELOAD', 'FAKETIME', 'FAKETIME_DONT_FAKE_MONOTONIC'];

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());

describe('guide "Signed-in visitors"', () => {
  let t: TestApp;
  let tenant: Tenant;
  let site: ReadySite;
  let secret: string;
  const scratch = path.join(ROOT, 'test-results', 'signed-in-visitors');

  beforeAll(async () => {
    t = await startTestApp({ env: SITES_TEST_ENV });
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey);
    // The guide's call, as its curl sends it.
    const created = await t.http.post(`/v1/channels/${site.channelId}/identity-secrets`, {
      key: tenant.testKey,
      headers: { 'idempotency-key': 'identity-secret-1' },
    });
    expect(created.status, created.text).toBe(201);
    secret = created.body.data.secret;
    fs.mkdirSync(scratch, { recursive: true });
  });
  afterAll(() => t?.close());

  /** Runs a snippet file as the guide says, with only the configuration it names in the environment. */
  async function mint(command: string, file: string, code: string): Promise<string> {
    const where = path.join(scratch, file);
    fs.writeFileSync(where, code);
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      IDENTITY_SECRET: secret,
      SITE_KEY: site.siteKey,
      // Under a faked clock (.ci/faked-clock.sh) the snippet runs on it too: it mints its token at the
      // service's time, not the real one months away.
      ...Object.fromEntries(
        FAKED_CLOCK_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
      ),
    };
    const { stdout } = await run(command, [where], { env, cwd: ROOT, timeout: 30_000 });
    return stdout.trim();
  }

  /** The SDK's call: the token from the site's registered origin. The service's clock is the real one now. */
  const identify = (token: string) => {
    t.clock.set(new Date());
    return t.http.post(`/v1/public/sites/${site.siteKey}/identity`, {
      body: { token },
      headers: { origin: SITE_ORIGIN },
    });
  };

  /** The checks every snippet's token passes: its claims as the guide's table says, accepted, and a forgery refused. */
  async function expectAcceptedToken(token: string) {
    expect(headerOf(token).alg).toBe('HS256');
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ sub: ACCOUNT, aud: site.siteKey });
    expect(claims.exp - claims.iat).toBeGreaterThan(0);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(24 * 3600);
    const accepted = await identify(token);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data).toHaveProperty('state');

    // Another account's id with this token's signature: what a visitor editing the token would try.
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'user-1' })).toString('base64url');
    expectProblemShape(await identify(`${header}.${forged}.${signature}`), 401, 'invalid_identity_token');
    return accepted.body.data;
  }

  it('the Node snippet (jose) mints a token the service accepts; a tampered one is a 401', async () => {
    const code = codeBlock("from 'jose'");
    const token = await mint('node', 'mint-identity-token.mjs', code);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // A new account: no choice yet.
    expect((await expectAcceptedToken(token)).state).toBeNull();

    // A decision sent with the token is the account's: the guide's backend reads find it by accountId.
    const decided = await postPreferences(t, site.siteKey, preferencesBody(site, { identityToken: token }));
    expect(decided.status, decided.text).toBe(201);
    const state = await t.http.get(`/v1/consent-state?channelId=${site.channelId}&accountId=${ACCOUNT}`, {
      key: tenant.testKey,
    });
    expect(state.status, state.text).toBe(200);
    expect(state.body.data.purposes.analytics.decision).toBe('granted');
    const lookup: Record<string, unknown> = {
      ...curlBody('POST', '/v1/consent-state/lookups'),
      channelId: site.channelId,
    };
    expect(lookup.accountIds).toContain(ACCOUNT);
    const many = await t.http.post('/v1/consent-state/lookups', { key: tenant.testKey, body: lookup });
    expect(many.status, many.text).toBe(200);
    expect(many.body.data.map((row: { state: unknown }) => row.state !== null)).toEqual([true, false]);
    // And the page that identifies next gets the account's choice.
    const again = await identify(token);
    expect(again.body.data.state?.purposes?.analytics).toBe('granted');
  }, 60_000);

  it.skipIf(skipWith(pythonSkipReason))(
    'the Python snippet (PyJWT) mints a token the service accepts; a tampered one is a 401',
    async () => {
      if (PYTHON === null)
        throw new Error('CI: no python3 with the jwt module; .ci/run installs python3-jwt');
      const token = await mint(PYTHON, 'mint_identity_token.py', codeBlock('import jwt'));
      await expectAcceptedToken(token);
    },
    60_000,
  );

  it('the PHP snippet (shown, not run) signs the same claims with HS256', () => {
    const php = codeBlock('Firebase\\JWT\\JWT');
    for (const part of ["'sub' =>", "'aud' => getenv('SITE_KEY')", "'iat' =>", "'exp' =>", "'HS256'"]) {
      expect(php).toContain(part);
    }
    expect(php).toContain("getenv('IDENTITY_SECRET')");
  });

  it('the guide’s rejectCooldownDays PATCH is the API’s, with the bounds it states', async () => {
    const body = curlBody('PATCH', '/v1/channels/$CH');
    const patch = (b: unknown) =>
      t.http.patch(`/v1/channels/${site.channelId}`, { key: tenant.testKey, body: b });
    const res = await patch(body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rejectCooldownDays).toBe(body.rejectCooldownDays);
    expect(GUIDE).toContain('0 to 395 days, default 0');
    for (const days of [-1, 396, 1.5]) {
      expectProblemShape(await patch({ rejectCooldownDays: days }), 422, 'validation_failed');
    }
  });
});
