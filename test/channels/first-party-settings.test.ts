import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, SITE_ORIGIN, SITES_TEST_ENV, WILDCARD_ORIGIN } from '../helpers/sites.ts';

/**
 * The channel's first-party settings (docs/guides/keep-the-choice.md): firstPartyPath, cookieDomain
 * (checked with the Public Suffix List, and against every registered origin, also when an origin is
 * added), crossDomain and imports. Each is on the channel, in its config snapshot (a new
 * configVersion, never a material one) and in the public config, on both of its paths.
 */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const key = () => tenant.testKey;
const errorPaths = (problem: { errors?: Array<{ path: string }> }) =>
  (problem.errors ?? []).map((e) => e.path);

async function patch(channelId: string, body: Record<string, unknown>) {
  return t.http.patch(`/v1/channels/${channelId}`, { key: key(), body });
}

describe('the channel fields', () => {
  it('default to no path, a host-only cookie, no handoffs and no imports', async () => {
    const res = await t.http.post('/v1/channels', { key: key(), body: { name: 'Plain' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      firstPartyPath: null,
      cookieDomain: null,
      crossDomain: false,
      imports: [],
    });
    const version = await t.http.get(`/v1/channels/${res.body.data.id}/config-versions/1`, { key: key() });
    expect(version.body.data.config).toMatchObject({
      firstPartyPath: null,
      cookieDomain: null,
      crossDomain: false,
      imports: [],
    });
  });

  it('firstPartyPath: a lower-case path without trailing slash or empty segment, else 422', async () => {
    const created = await t.http.post('/v1/channels', {
      key: key(),
      body: { name: 'Path', firstPartyPath: '/consent' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.firstPartyPath).toBe('/consent');
    const id = created.body.data.id;
    for (const good of ['/cs/v2_x-1', '/a']) {
      const res = await patch(id, { firstPartyPath: good });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.firstPartyPath).toBe(good);
    }
    for (const bad of [
      'consent',
      '/',
      '/Consent',
      '/consent/',
      '/a//b',
      '/../x',
      '/con sent',
      '/%2e%2e',
      `/${'a'.repeat(65)}`,
      '/-x',
      '',
      7,
    ]) {
      const res = await patch(id, { firstPartyPath: bad });
      const problem = expectProblemShape(res, 422, 'validation_failed');
      expect(errorPaths(problem), String(bad)).toContain('/firstPartyPath');
      const made = await t.http.post('/v1/channels', {
        key: key(),
        body: { name: 'Bad', firstPartyPath: bad },
      });
      expectProblemShape(made, 422, 'validation_failed');
    }
    const cleared = await patch(id, { firstPartyPath: null });
    expect(cleared.body.data.firstPartyPath).toBeNull();
  });

  it('cookieDomain: never a public suffix or an address; it must cover every active origin', async () => {
    const site = await createReadySite(t, key()); // shop.example.com and *.example.org
    for (const bad of [
      'com',
      'co.uk',
      'github.io',
      'localhost',
      '127.0.0.1',
      'Example.com',
      '.example.com',
    ]) {
      const problem = expectProblemShape(
        await patch(site.channelId, { cookieDomain: bad }),
        422,
        'validation_failed',
      );
      expect(errorPaths(problem), bad).toContain('/cookieDomain');
    }
    // Covers shop.example.com but not *.example.org: refused, naming the origin left out.
    const partial = expectProblemShape(
      await patch(site.channelId, { cookieDomain: 'example.com' }),
      422,
      'validation_failed',
    );
    expect(partial.errors).toEqual([
      { path: '/cookieDomain', message: expect.stringContaining(WILDCARD_ORIGIN) },
    ]);
    expect(partial.detail).toContain('does not cover');

    // A channel whose origins are all under example.com takes it; a public suffix is still refused at create.
    const made = await t.http.post('/v1/channels', {
      key: key(),
      body: { name: 'Sub', cookieDomain: 'example.com' },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.cookieDomain).toBe('example.com');
    const id = made.body.data.id;
    for (const origin of ['https://www.example.com', 'https://*.example.com', 'https://example.com']) {
      const added = await t.http.post(`/v1/channels/${id}/origins`, { key: key(), body: { origin } });
      expect(added.status, added.text).toBe(201);
    }
    expectProblemShape(
      await t.http.post('/v1/channels', { key: key(), body: { name: 'Suffix', cookieDomain: 'co.uk' } }),
      422,
      'validation_failed',
    );

    // An origin the cookie Domain would not reach is refused when it is added.
    for (const origin of [
      'https://www.example.net',
      'https://example.com.evil.io',
      'http://localhost:8080',
    ]) {
      const refused = await t.http.post(`/v1/channels/${id}/origins`, { key: key(), body: { origin } });
      const problem = expectProblemShape(refused, 422, 'validation_failed');
      expect(errorPaths(problem)).toEqual(['/origin']);
    }
    const origins = await t.http.get(`/v1/channels/${id}/origins`, { key: key() });
    expect(origins.body.data).toHaveLength(3);

    // A subdomain is narrower: it does not cover the wildcard over example.com.
    const narrow = expectProblemShape(
      await patch(id, { cookieDomain: 'www.example.com' }),
      422,
      'validation_failed',
    );
    expect(narrow.errors[0].message).toContain('https://*.example.com');
    // Without a cookieDomain any origin may be added again.
    expect((await patch(id, { cookieDomain: null })).body.data.cookieDomain).toBeNull();
    const later = await t.http.post(`/v1/channels/${id}/origins`, {
      key: key(),
      body: { origin: 'https://www.example.net' },
    });
    expect(later.status, later.text).toBe(201);
  });

  it('imports: known CMPs once each, their ids in their shape, our optional purposes only', async () => {
    const site = await createReadySite(t, key()); // necessary (required), analytics, marketing
    const good = [
      { from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } },
      { from: 'cookiebot', purposes: { statistics: 'analytics', marketing: 'marketing' } },
      { from: 'tcf', purposes: { '1': 'analytics', '11': 'marketing' } },
    ];
    const saved = await patch(site.channelId, { imports: good });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data.imports).toEqual(good);

    const cases: Array<[unknown, string]> = [
      [[{ from: 'quantcast', purposes: { x: 'analytics' } }], '/imports/0/from'],
      [[good[0], good[0]], '/imports/1/from'],
      [[{ from: 'onetrust', purposes: { c0002: 'analytics' } }], '/imports/0/purposes/c0002'],
      [[{ from: 'onetrust', purposes: { C02: 'analytics' } }], '/imports/0/purposes/C02'],
      [[{ from: 'cookiebot', purposes: { necessary: 'analytics' } }], '/imports/0/purposes/necessary'],
      [[{ from: 'tcf', purposes: { '0': 'analytics' } }], '/imports/0/purposes/0'],
      [[{ from: 'tcf', purposes: { '12': 'analytics' } }], '/imports/0/purposes/12'],
      [[{ from: 'tcf', purposes: { '1': 'nope' } }], '/imports/0/purposes/1'],
      [[{ from: 'tcf', purposes: { '1': 'necessary' } }], '/imports/0/purposes/1'],
      [[{ from: 'tcf', purposes: {} }], '/imports/0/purposes'],
      [[{ from: 'tcf', purposes: { '1': 'analytics' }, extra: true }], '/imports/0'],
      [{ from: 'tcf' }, '/imports'],
    ];
    for (const [imports, path] of cases) {
      const problem = expectProblemShape(await patch(site.channelId, { imports }), 422, 'validation_failed');
      expect(
        errorPaths(problem).some((p) => p.startsWith(path)),
        `${JSON.stringify(imports)}: ${problem.detail}`,
      ).toBe(true);
    }
    const reread = await t.http.get(`/v1/channels/${site.channelId}`, { key: key() });
    expect(reread.body.data.imports).toEqual(good);
  });

  it('a change is a new config version, not a material one, carried by both paths of the public config', async () => {
    const site = await createReadySite(t, key());
    const config = (query = '') =>
      t.http.get(`/v1/public/sites/${site.siteKey}/config${query}`, { headers: { origin: SITE_ORIGIN } });
    const before = await config();
    expect(before.body.data).toMatchObject({
      firstPartyPath: null,
      cookieDomain: null,
      crossDomain: false,
      imports: [],
      siblingDomains: [],
    });

    const settings = {
      firstPartyPath: '/consent',
      crossDomain: true,
      imports: [{ from: 'onetrust', purposes: { C0004: 'marketing', C0002: 'analytics' } }],
    };
    const patched = await patch(site.channelId, settings);
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.configVersion).toBe(site.configVersion + 1);
    const version = await t.http.get(
      `/v1/channels/${site.channelId}/config-versions/${site.configVersion + 1}`,
      {
        key: key(),
      },
    );
    expect(version.body.data).toMatchObject({ reconsent: false, config: settings });

    await config();
    const fast = await config();
    // An empty query string leaves the read to Fastify's route, not the fast path (config-fast-path.ts).
    const routed = await config('?');
    for (const answer of [fast, routed]) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.data).toMatchObject({
        ...settings,
        cookieDomain: null,
        configVersion: site.configVersion + 1,
        consentRequiredSince: before.body.data.consentRequiredSince,
      });
      // shop.example.com and *.example.org (added in the same clock millisecond, so in either order):
      // two registrable domains, both named.
      expect(answer.body.data.siblingDomains).toHaveLength(2);
      expect(answer.body.data.siblingDomains).toEqual(
        expect.arrayContaining([
          { domain: 'example.com', origins: [SITE_ORIGIN] },
          { domain: 'example.org', origins: [WILDCARD_ORIGIN] },
        ]),
      );
    }
    expect(fast.headers.get('etag')).toBe(routed.headers.get('etag'));

    // An archived purpose leaves the imports the config carries; the channel keeps what was written.
    const purposes = await t.http.get(`/v1/channels/${site.channelId}/purposes`, { key: key() });
    const marketing = purposes.body.data.find((p: { key: string }) => p.key === 'marketing');
    await t.http.post(`/v1/channels/${site.channelId}/purposes/${marketing.id}/archive`, { key: key() });
    const after = await config('?');
    expect(after.body.data.imports).toEqual([{ from: 'onetrust', purposes: { C0002: 'analytics' } }]);
    const channel = await t.http.get(`/v1/channels/${site.channelId}`, { key: key() });
    expect(channel.body.data.imports).toEqual(settings.imports);

    // crossDomain with origins on one registrable domain only: nothing to hand over.
    const single = await createReadySite(t, key());
    const archived = await t.http.get(`/v1/channels/${single.channelId}/origins`, { key: key() });
    const wildcard = archived.body.data.find((o: { origin: string }) => o.origin === WILDCARD_ORIGIN);
    await t.http.post(`/v1/channels/${single.channelId}/origins/${wildcard.id}/archive`, { key: key() });
    await patch(single.channelId, { crossDomain: true });
    const alone = await t.http.get(`/v1/public/sites/${single.siteKey}/config?`, {
      headers: { origin: SITE_ORIGIN },
    });
    expect(alone.body.data).toMatchObject({ crossDomain: true, siblingDomains: [] });
  });
});

describe('the snippet', () => {
  it('gives both forms, and the first-party one to paste once the channel has a path', async () => {
    const site = await createReadySite(t, key());
    const snippet = () => t.http.get(`/v1/public/sites/${site.siteKey}/snippet`);
    const direct = `<script src="${t.config.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js" data-site-key="${site.siteKey}" async></script>`;
    const plain = await snippet();
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body.data).toEqual({ html: direct, firstPartyHtml: null, directHtml: direct });

    await patch(site.channelId, { firstPartyPath: '/consent' });
    const firstParty = `<script src="/consent/v1/public/sites/${site.siteKey}/sdk.js" data-site-key="${site.siteKey}" async></script>`;
    const withPath = await snippet();
    expect(withPath.body.data).toEqual({ html: firstParty, firstPartyHtml: firstParty, directHtml: direct });
  });
});
