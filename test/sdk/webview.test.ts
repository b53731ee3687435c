import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER } from './fixture.ts';
import {
  closeKeepTheChoiceRun,
  createChannel,
  DECIDED,
  evidenceOf,
  firstPartySdk,
  HOSTS,
  type ProxiedSite,
  proxiedSkipReason,
  sitePage,
  startKeepTheChoiceRun,
} from './keep-the-choice-helpers.ts';

/**
 * The web SDK inside an app's WebView (docs/guides/apps.md): it tells the app of every change
 * through whichever bridge the app exposes, and a page the app opens with `#cs_app=<token>` (from
 * `…/app-handoffs`) takes the app's choice without asking.
 */
const skipReason = proxiedSkipReason;

const APP_ID = 'com.example.shop';
const APP_HEADERS = {
  'x-consent-app': APP_ID,
  'x-consent-platform': 'ios',
  'x-consent-sdk-version': '1.2.0',
};

let t: TestApp;
let tenant: Tenant;
let site: ProxiedSite;
let web: { id: string; siteKey: string };

/** The three bridges an app may expose, each recording what it was given (window.fromPage). */
const BRIDGES = `window.fromPage = [];
window.ReactNativeWebView = { postMessage: (m) => fromPage.push(['react-native', m]) };
window.ConsentServiceAndroid = { postMessage: (m) => fromPage.push(['android', m]) };
window.webkit = { messageHandlers: { consentService: { postMessage: (m) => fromPage.push(['ios', m]) } } };`;

beforeAll(async () => {
  if (skipReason) return;
  ({ t, tenant, site } = await startKeepTheChoiceRun());
  web = await createChannel(t, tenant.testKey, [site.origin(HOSTS.www)], { firstPartyPath: '/consent' });
  site.setPage('/webview', sitePage(firstPartySdk(web.siteKey), web.siteKey));
}, 60_000);
afterAll(() => closeKeepTheChoiceRun({ t, site }));

async function webview(): Promise<BrowserContext> {
  const context = await site.visitor();
  await context.addInitScript(BRIDGES);
  return context;
}

describe.skipIf(skipWith(skipReason))('the web SDK in an app’s WebView', () => {
  it('posts every change to the React Native, Android and iOS bridges', async () => {
    const page = await (await webview()).newPage();
    await page.goto(`${site.origin(HOSTS.www)}/webview`);
    await page.locator(BANNER).waitFor();
    await page.locator(action('reject-all')).click();
    await page.waitForFunction('window.fromPage.length >= 3');
    const posted = (await page.evaluate('window.fromPage')) as Array<[string, unknown]>;
    const expected = {
      type: 'consent-service:change',
      decisions: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
      configVersion: expect.any(Number),
    };
    expect(posted.map(([bridge]) => bridge)).toEqual(['react-native', 'android', 'ios']);
    // React Native's and Android's bridges take text, iOS's message handler an object.
    expect(JSON.parse(posted[0][1] as string)).toEqual(expected);
    expect(JSON.parse(posted[1][1] as string)).toEqual(expected);
    expect(posted[2][1]).toEqual(expected);
  });

  it('a page opened with #cs_app=<token> takes the app’s choice: no banner, the evidence says from which app', async () => {
    const app = await t.http.post('/v1/channels', {
      key: tenant.testKey,
      body: { name: 'Shop app', platform: 'app' },
    });
    expect(app.status, app.text).toBe(201);
    const appChannel = app.body.data;
    for (const [key, required] of [
      ['necessary', true],
      ['analytics', false],
      ['marketing', false],
    ] as const) {
      const res = await t.http.post(`/v1/channels/${appChannel.id}/purposes`, {
        key: tenant.testKey,
        body: { key, name: key, required },
      });
      expect(res.status, res.text).toBe(201);
    }
    const added = await t.http.post(`/v1/channels/${appChannel.id}/apps`, {
      key: tenant.testKey,
      body: { appId: APP_ID, store: 'apple' },
    });
    expect(added.status, added.text).toBe(201);
    const { configVersion } = (await t.http.get(`/v1/channels/${appChannel.id}`, { key: tenant.testKey }))
      .body.data;
    const subjectId = `app-${'a'.repeat(28)}`;
    const decided = await t.http.post(`/v1/public/sites/${appChannel.siteKey}/preferences`, {
      headers: APP_HEADERS,
      body: {
        subjectId,
        decisions: { analytics: 'granted', marketing: 'denied' },
        configVersion,
        source: 'banner',
      },
    });
    expect(decided.status, decided.text).toBe(201);
    const handoff = await t.http.post(`/v1/public/sites/${appChannel.siteKey}/app-handoffs`, {
      headers: APP_HEADERS,
      body: { subjectId, target: site.origin(HOSTS.www), targetSiteKey: web.siteKey },
    });
    expect(handoff.status, handoff.text).toBe(201);

    const page = await (await webview()).newPage();
    await page.goto(`${site.origin(HOSTS.www)}/webview#cs_app=${handoff.body.data.token}`);
    await page.waitForFunction(DECIDED);
    expect(page.url()).toBe(`${site.origin(HOSTS.www)}/webview`);
    expect(await page.locator(BANNER).count()).toBe(0);
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    const events = await evidenceOf(t, tenant.testKey, web.id, subjectId);
    expect(events[0]).toMatchObject({ source: 'handoff', handoff: { fromApp: APP_ID } });
  });
});
