import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { ALL_DENIED, action, BANNER, consentState, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite, type Site, shopPage } from './harness.ts';

/**
 * In Chromium: Microsoft UET's consent mode, Clarity's consentv2 and the
 * dataLayer `consent_update` event, in the order a page's tags see them (each default before any
 * update, the dataLayer event after the signals), with ad_storage and analytics_storage as the
 * purposes' consentModeSignals map them (marketing → ad_storage, analytics → analytics_storage).
 */

/**
 * The tags' queues as the page defines them before the SDK: UET's `uetq` array, Clarity's own stub,
 * Google's gtag (shopPage), each wrapped so one list records every call in the order made.
 */
const TAG_QUEUES = `<script>
window.tagCalls = [];
function rec(tag, args) { tagCalls.push([tag].concat(JSON.parse(JSON.stringify(args)))); }
window.uetq = []; var uetPush = uetq.push;
uetq.push = function () { rec('uet', Array.from(arguments)); return uetPush.apply(this, arguments); };
window.clarity = function () { rec('clarity', Array.from(arguments)); (window.clarity.q = window.clarity.q || []).push(arguments); };
var gtag0 = window.gtag; window.gtag = function () { rec('gtag', Array.from(arguments)); return gtag0.apply(this, arguments); };
var dlPush = dataLayer.push;
dataLayer.push = function (entry) {
  if (Object.prototype.toString.call(entry) !== '[object Arguments]') rec('dataLayer', [entry]);
  return dlPush.apply(this, arguments);
};
</script>`;

describe.skipIf(skipWith(browserSkipReason))('Microsoft UET, Clarity and dataLayer in Chromium', () => {
  const f = sdkFixture();

  async function site(integrations?: Record<string, boolean>): Promise<Site> {
    const created = await createSite(f.t, f.key, f.pages.origin);
    if (!integrations) return created;
    const res = await f.t.http.patch(`/v1/channels/${created.channelId}`, {
      key: f.key,
      body: { integrations },
    });
    expect(res.status, res.text).toBe(200);
    return { ...created, configVersion: res.body.data.configVersion };
  }

  /** The shop page with `head` before the SDK's tag (none: the tags' queues are not defined). */
  async function open(s: Site, head: string) {
    const sdkSrc = `${f.t.baseUrl}/v1/public/sites/${s.siteKey}/sdk.js`;
    const html = shopPage(sdkSrc, s.siteKey, { gtag: true }).replace('<script src=', `${head}\n<script src=`);
    const path = `/tags-${s.siteKey}-${head ? 'queues' : 'bare'}.html`;
    f.pages.setPage(path, html);
    const context = await f.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(f.pages.origin + path);
    return { context, page };
  }
  const calls = (page: Page): Promise<unknown[][]> => page.evaluate('window.tagCalls');

  it('both on: UET default before anything, then on each choice gtag, UET, Clarity and consent_update, in that order', async () => {
    const s = await site({ microsoftUet: true, microsoftClarity: true });
    const { context, page } = await open(s, TAG_QUEUES);
    await page.locator(BANNER).waitFor();
    expect(await calls(page)).toEqual([
      ['gtag', 'consent', 'default', ALL_DENIED],
      ['uet', 'consent', 'default', { ad_storage: 'denied' }],
    ]);

    await page.click(action('accept-all'));
    const accepted = { necessary: 'granted', analytics: 'granted', marketing: 'granted' };
    await expect.poll(async () => (await calls(page)).length, { timeout: 10_000 }).toBe(6);
    expect((await calls(page)).slice(2)).toEqual([
      [
        'gtag',
        'consent',
        'update',
        consentState('analytics_storage', 'ad_storage', 'ad_user_data', 'ad_personalization'),
      ],
      ['uet', 'consent', 'update', { ad_storage: 'granted' }],
      ['clarity', 'consentv2', { ad_Storage: 'granted', analytics_Storage: 'granted' }],
      ['dataLayer', { event: 'consent_update', consent: accepted }],
    ]);

    // A later change: analytics only (marketing off, so ad_storage denied).
    await page.evaluate('window.ConsentService.showPreferences()');
    await page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
    await page.locator('input[data-consent-purpose="marketing"]').uncheck();
    await page.click(action('save'));
    await expect.poll(async () => (await calls(page)).length, { timeout: 10_000 }).toBe(10);
    expect((await calls(page)).slice(6)).toEqual([
      ['gtag', 'consent', 'update', consentState('analytics_storage')],
      ['uet', 'consent', 'update', { ad_storage: 'denied' }],
      ['clarity', 'consentv2', { ad_Storage: 'denied', analytics_Storage: 'granted' }],
      ['dataLayer', { event: 'consent_update', consent: { ...accepted, marketing: 'denied' } }],
    ]);

    // The next page: the stored decision applied, after UET's default.
    await page.reload();
    await expect.poll(async () => (await calls(page)).length, { timeout: 10_000 }).toBe(6);
    expect((await calls(page)).map(([tag, ...rest]) => `${tag}:${rest[0]}:${rest[1] ?? ''}`)).toEqual([
      'gtag:consent:default',
      'uet:consent:default',
      'gtag:consent:update',
      'uet:consent:update',
      'clarity:consentv2:[object Object]',
      'dataLayer:[object Object]:',
    ]);
    await context.close();
  });

  it('both off (the default): no UET or Clarity call, the dataLayer event all the same', async () => {
    const s = await site();
    const { context, page } = await open(s, TAG_QUEUES);
    await page.locator(BANNER).waitFor();
    await page.click(action('reject-all'));
    await expect.poll(async () => (await calls(page)).length, { timeout: 10_000 }).toBe(3);
    expect(await calls(page)).toEqual([
      ['gtag', 'consent', 'default', ALL_DENIED],
      ['gtag', 'consent', 'update', ALL_DENIED],
      [
        'dataLayer',
        {
          event: 'consent_update',
          consent: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
        },
      ],
    ]);
    await context.close();
  });

  it('tags not loaded and no queues on the page: the SDK makes uetq and Clarity’s queue, which hold the calls', async () => {
    const s = await site({ microsoftUet: true, microsoftClarity: true });
    const { context, page } = await open(s, '');
    await page.locator(BANNER).waitFor();
    expect(await page.evaluate('window.uetq')).toEqual(['consent', 'default', { ad_storage: 'denied' }]);
    expect(await page.evaluate('typeof window.clarity')).toBe('undefined');
    await page.click(action('accept-all'));
    await expect.poll(() => page.evaluate('window.uetq.length'), { timeout: 10_000 }).toBe(6);
    expect(await page.evaluate('window.uetq.slice(3)')).toEqual([
      'consent',
      'update',
      { ad_storage: 'granted' },
    ]);
    expect(await page.evaluate('window.clarity.q.map((a) => Array.from(a))')).toEqual([
      ['consentv2', { ad_Storage: 'granted', analytics_Storage: 'granted' }],
    ]);
    await context.close();
  });
});
