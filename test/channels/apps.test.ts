import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * App channels (docs/guides/apps.md): app ids instead of origins, public calls with X-Consent-App
 * instead of an Origin, the app kept in the evidence, analytics by platform, and app-handoffs into
 * a WebView page of a web channel.
 */
let t: TestApp;
let tenant: Tenant;
let app: { id: string; siteKey: string; configVersion: number };
let web: ReadySite;
const APP_ID = 'com.example.shop';
const appHeaders = { 'x-consent-app': APP_ID, 'x-consent-platform': 'ios', 'x-consent-sdk-version': '1.2.0' };

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  web = await createReadySite(t, tenant.testKey);
  const created = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name: 'Shop app', platform: 'app' },
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  for (const [key, required] of [
    ['necessary', true],
    ['analytics', false],
    ['marketing', false],
  ] as const) {
    t.clock.advance(1);
    const res = await t.http.post(`/v1/channels/${id}/purposes`, {
      key: tenant.testKey,
      body: { key, name: key, required },
    });
    expect(res.status, res.text).toBe(201);
  }
  const added = await t.http.post(`/v1/channels/${id}/apps`, {
    key: tenant.testKey,
    body: { appId: APP_ID, store: 'apple' },
  });
  expect(added.status, added.text).toBe(201);
  const channel = await t.http.get(`/v1/channels/${id}`, { key: tenant.testKey });
  app = { id, siteKey: channel.body.data.siteKey, configVersion: channel.body.data.configVersion };
});
afterAll(() => t?.close());

const decide = (subjectId: string, headers: Record<string, string> = appHeaders) =>
  t.http.post(`/v1/public/sites/${app.siteKey}/preferences`, {
    body: {
      subjectId,
      decisions: { analytics: 'granted', marketing: 'denied' },
      configVersion: app.configVersion,
      source: 'banner',
    },
    headers,
  });

describe('app channels and their apps', () => {
  it('shows the platform: web by default, app when created so; not changeable', async () => {
    expect(web.channel.platform).toBe('web');
    const res = await t.http.get(`/v1/channels/${app.id}`, { key: tenant.testKey });
    expect(res.body.data.platform).toBe('app');
    const patched = await t.http.patch(`/v1/channels/${app.id}`, {
      key: tenant.testKey,
      body: { platform: 'web' },
    });
    expect(patched.status).toBe(422);
    expectProblemShape(patched, 422, 'validation_failed');
  });

  it('lists, refuses duplicates and bad ids, archives, and audits', async () => {
    const list = await t.http.get(`/v1/channels/${app.id}/apps`, { key: tenant.testKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ appId: APP_ID, store: 'apple', status: 'active', channelId: app.id }),
    ]);
    const dup = await t.http.post(`/v1/channels/${app.id}/apps`, {
      key: tenant.testKey,
      body: { appId: APP_ID, store: 'apple' },
    });
    expectProblemShape(dup, 409, 'app_duplicate');
    expect(dup.body.instance).toBe(`/v1/channels/${app.id}/apps`);
    for (const appId of ['shop', '1com.example', 'com..example', `com.${'a'.repeat(260)}`]) {
      const bad = await t.http.post(`/v1/channels/${app.id}/apps`, {
        key: tenant.testKey,
        body: { appId, store: 'google' },
      });
      expectProblemShape(bad, 422, 'validation_failed');
    }
    const other = await t.http.post(`/v1/channels/${app.id}/apps`, {
      key: tenant.testKey,
      body: { appId: 'com.example.old', store: 'google' },
    });
    expect(other.status, other.text).toBe(201);
    const archived = await t.http.post(`/v1/channels/${app.id}/apps/${other.body.data.id}/archive`, {
      key: tenant.testKey,
    });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.data.status).toBe('archived');
    const again = await t.http.post(`/v1/channels/${app.id}/apps/${other.body.data.id}/archive`, {
      key: tenant.testKey,
    });
    expectProblemShape(again, 409, 'invalid_state');
    const refused = await t.http.get(`/v1/public/sites/${app.siteKey}/config`, {
      headers: { 'x-consent-app': 'com.example.old' },
    });
    expectProblemShape(refused, 403, 'app_not_allowed');
    const audit = await t.http.get('/v1/audit-logs?action=app.archived', { key: tenant.testKey });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data[0].target).toEqual({ type: 'app', id: other.body.data.id });
  });

  it('keeps origins to web channels and app ids to app channels (422)', async () => {
    const origin = await t.http.post(`/v1/channels/${app.id}/origins`, {
      key: tenant.testKey,
      body: { origin: 'https://app.example.com' },
    });
    expectProblemShape(origin, 422, 'validation_failed');
    const appOnWeb = await t.http.post(`/v1/channels/${web.channelId}/apps`, {
      key: tenant.testKey,
      body: { appId: APP_ID, store: 'apple' },
    });
    expectProblemShape(appOnWeb, 422, 'validation_failed');
  });

  it('needs channels:manage to register an app', async () => {
    const reader = (await tenant.key(['channels:read'])).secret;
    const res = await t.http.post(`/v1/channels/${app.id}/apps`, {
      key: reader,
      body: { appId: 'com.example.x', store: 'apple' },
    });
    expectProblemShape(res, 403, 'insufficient_scope');
    expect((await t.http.get(`/v1/channels/${app.id}/apps`, { key: reader })).status).toBe(200);
  });
});

describe('public calls of an app channel', () => {
  it('answers a registered app, refuses a missing or unknown app id and any browser Origin', async () => {
    const ok = await t.http.get(`/v1/public/sites/${app.siteKey}/config`, { headers: appHeaders });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBeNull();
    expectProblemShape(await t.http.get(`/v1/public/sites/${app.siteKey}/config`), 403, 'app_not_allowed');
    expectProblemShape(
      await t.http.get(`/v1/public/sites/${app.siteKey}/config`, {
        headers: { 'x-consent-app': 'com.example.other' },
      }),
      403,
      'app_not_allowed',
    );
    expectProblemShape(
      await t.http.get(`/v1/public/sites/${app.siteKey}/config`, {
        headers: { ...appHeaders, origin: SITE_ORIGIN },
      }),
      403,
      'origin_not_allowed',
    );
    expectProblemShape(
      await decide(newSubjectId(), { origin: 'http://localhost:3000' }),
      403,
      'origin_not_allowed',
    );
    expectProblemShape(
      await decide(newSubjectId(), { ...appHeaders, 'x-consent-platform': 'windows' }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await decide(newSubjectId(), { ...appHeaders, 'x-consent-sdk-version': 'latest' }),
      422,
      'validation_failed',
    );
  });

  it('records nothing for a refused call: no app id, an unknown one, an Origin, a header too long', async () => {
    const huge = 'i'.repeat(8_000);
    const refusals: [Record<string, string>, number, string][] = [
      [{}, 403, 'app_not_allowed'],
      [{ ...appHeaders, 'x-consent-app': 'com.example.other' }, 403, 'app_not_allowed'],
      [{ ...appHeaders, origin: SITE_ORIGIN }, 403, 'origin_not_allowed'],
      [{ ...appHeaders, 'x-consent-app': `com.${huge}` }, 403, 'app_not_allowed'],
      [{ ...appHeaders, 'x-consent-platform': huge }, 422, 'validation_failed'],
      [{ ...appHeaders, 'x-consent-sdk-version': huge }, 422, 'validation_failed'],
    ];
    for (const [headers, status, code] of refusals) {
      const subjectId = newSubjectId();
      expectProblemShape(await decide(subjectId, headers), status, code);
      const recorded = await t.http.get(
        `/v1/evidence?channelId=${app.id}&subjectId=${encodeURIComponent(subjectId)}`,
        { key: tenant.testKey },
      );
      expect(recorded.status, recorded.text).toBe(200);
      expect(recorded.body.data, JSON.stringify(Object.keys(headers))).toEqual([]);
    }
  });

  it('records the app in place of the origin, filters evidence by appId, counts by platform', async () => {
    const res = await decide(newSubjectId());
    expect(res.status, res.text).toBe(201);
    const android = await decide(newSubjectId(), {
      'x-consent-app': APP_ID,
      'x-consent-platform': 'android',
    });
    expect(android.status, android.text).toBe(201);
    const event = await t.http.get(`/v1/evidence/${res.body.data.id}`, { key: tenant.testKey });
    expect(event.body.data).toMatchObject({
      origin: null,
      source: 'banner',
      app: { appId: APP_ID, platform: 'ios', sdkVersion: '1.2.0' },
    });
    const listed = await t.http.get(`/v1/evidence?appId=${APP_ID}&channelId=${app.id}`, {
      key: tenant.testKey,
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual(
      expect.arrayContaining([res.body.data.id, android.body.data.id]),
    );
    const none = await t.http.get('/v1/evidence?appId=com.example.none', { key: tenant.testKey });
    expect(none.body.data).toEqual([]);
    const impression = await t.http.post(`/v1/public/sites/${app.siteKey}/impressions`, {
      body: { configVersion: app.configVersion },
      headers: appHeaders,
    });
    expect(impression.status, impression.text).toBe(204);
    const day = t.clock.now().toISOString().slice(0, 10);
    const counts = await t.http.get(
      `/v1/analytics/consent?channelId=${app.id}&from=${day}&to=${day}&groupBy=platform`,
      { key: tenant.testKey },
    );
    expect(counts.status, counts.text).toBe(200);
    const byPlatform = Object.fromEntries(
      counts.body.data.map((row: { platform: string; decisions: number }) => [row.platform, row.decisions]),
    );
    expect(byPlatform).toMatchObject({ ios: expect.any(Number), android: 1 });
    expect(byPlatform.ios).toBeGreaterThanOrEqual(1);
  });
});

describe('app-handoffs into a WebView page', () => {
  const redeem = (token: string, subjectId: string, origin = SITE_ORIGIN) =>
    t.http.post(`/v1/public/sites/${web.siteKey}/handoffs/redeem`, {
      body: { token, subjectId },
      headers: { origin },
    });
  const ask = (body: Record<string, unknown>, headers: Record<string, string> = appHeaders) =>
    t.http.post(`/v1/public/sites/${app.siteKey}/app-handoffs`, { body, headers });

  it('hands the app visitor’s choice to the page once, recorded there with handoff.fromApp', async () => {
    const subjectId = newSubjectId();
    expect((await decide(subjectId)).status).toBe(201);
    const asked = await ask({ subjectId, target: SITE_ORIGIN, targetSiteKey: web.siteKey });
    expect(asked.status, asked.text).toBe(201);
    const { token } = asked.body.data;
    expectProblemShape(
      await redeem(token, newSubjectId(), 'https://blog.example.org'),
      404,
      'handoff_not_found',
    );
    const page = newSubjectId();
    const redeemed = await redeem(token, page);
    expect(redeemed.status, redeemed.text).toBe(200);
    expect(redeemed.body.data).toMatchObject({
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      configVersion: web.configVersion,
    });
    expectProblemShape(await redeem(token, page), 404, 'handoff_not_found');
    const events = await t.http.get(`/v1/evidence?channelId=${web.channelId}&source=handoff`, {
      key: tenant.testKey,
    });
    expect(events.body.data[0]).toMatchObject({
      origin: SITE_ORIGIN,
      handoff: { fromApp: APP_ID, eventId: expect.stringMatching(/^evt_/) },
    });
  });

  it('refuses what it cannot stand behind', async () => {
    const subjectId = newSubjectId();
    expectProblemShape(
      await ask({ subjectId, target: 'https://elsewhere.example', targetSiteKey: web.siteKey }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await ask({ subjectId, target: SITE_ORIGIN, targetSiteKey: app.siteKey }),
      422,
      'validation_failed',
    );
    expectProblemShape(
      await ask({ subjectId, target: SITE_ORIGIN, targetSiteKey: 'site_test_000000000000000000000000' }),
      404,
      'not_found',
    );
    expectProblemShape(
      await ask({ subjectId, target: SITE_ORIGIN, targetSiteKey: web.siteKey }, {}),
      403,
      'app_not_allowed',
    );
    // No decision of the app visitor: the token is issued, but nothing can be redeemed with it.
    const asked = await ask({ subjectId, target: SITE_ORIGIN, targetSiteKey: web.siteKey });
    expectProblemShape(await redeem(asked.body.data.token, newSubjectId()), 404, 'handoff_not_found');
    const onWeb = await t.http.post(`/v1/public/sites/${web.siteKey}/app-handoffs`, {
      body: { subjectId, target: SITE_ORIGIN, targetSiteKey: web.siteKey },
      headers: { ...appHeaders },
    });
    expectProblemShape(onWeb, 422, 'validation_failed');
  });
});
