import type { BrowserContext, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite } from './harness.ts';

/**
 * A first-time visitor's banner needs one request to the service, sdk.js, which
 * carries the site's config for the visitor's region; nothing before the banner is a CORS preflight,
 * and the impression that follows it is a CORS-simple POST (no preflight either).
 */
/** Notes the moment the banner enters the page (performance.now()), before any test code can look. */
const WATCH_BANNER = `new MutationObserver((_, observer) => {
  if (document.querySelector('${BANNER}')) { window.bannerAt = performance.now(); observer.disconnect(); }
}).observe(document, { childList: true, subtree: true });`;

/** Resource Timing: the requests the page started before the banner appeared, as "path". */
const startedBeforeBanner = (page: Page, base: string): Promise<string[]> =>
  page.evaluate(
    (base) =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.name.startsWith(base) && e.startTime < (globalThis as any).bannerAt)
        .map((e) => new URL(e.name).pathname),
    base,
  );

/**
 * The requests of `context` that reached the network (not answered from the HTTP cache), by
 * Chromium's own account (DevTools protocol).
 */
async function networkRequests(context: BrowserContext, page: Page, base: string) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const sent = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.request.url.startsWith(base))
      sent.set(e.requestId, `${e.request.method} ${new URL(e.request.url).pathname}`);
  });
  cdp.on('Network.requestServedFromCache', (e) => sent.delete(e.requestId));
  cdp.on('Network.responseReceived', (e) => {
    if (e.response.fromDiskCache) sent.delete(e.requestId);
  });
  return () => [...sent.values()];
}

describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: requests before the banner', () => {
  const f = sdkFixture();

  it('one request to the service before the banner is visible (sdk.js), no preflight, the impression after it', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const context = await f.browser.newContext({ locale: 'en-US' });
    await context.addInitScript(WATCH_BANNER);
    const toService: Request[] = [];
    context.on('request', (r) => {
      if (r.url().startsWith(f.t.baseUrl)) toService.push(r);
    });
    const { page } = await f.visit(site, { context });
    await page.locator(BANNER).waitFor({ state: 'visible' });
    expect(await startedBeforeBanner(page, f.t.baseUrl)).toEqual([`/v1/public/sites/${site.siteKey}/sdk.js`]);

    // Then, once the banner is painted and the page idle: the impression, and still no preflight.
    const impressions = `/v1/public/sites/${site.siteKey}/impressions`;
    await expect.poll(() => toService.some((r) => r.url().endsWith(impressions))).toBe(true);
    const impression = toService.find((r) => r.url().endsWith(impressions))!;
    expect(impression.method()).toBe('POST');
    expect((await impression.response())?.status()).toBe(204);
    expect(toService.filter((r) => r.method() === 'OPTIONS')).toEqual([]);

    // The config sdk.js carried is the one `…/config` answers; the visitor's decision names its version.
    await page.click(action('accept-all'));
    const [event] = await f.recorded(context, site, 1);
    expect(event.configVersion).toBe(site.configVersion);
    await context.close();
  });

  it('a returning visitor within the cache lifetime makes no request to the service at all', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const { context, page } = await f.visit(site);
    await page.click(action('accept-all'));
    await f.recorded(context, site, 1);
    const toNetwork = await networkRequests(context, page, f.t.baseUrl);
    // A link followed to the same page (a reload would revalidate on purpose).
    await page.goto(page.url());
    await page.waitForFunction('window.changes.length > 0');
    expect(await f.decisions(page)).toMatchObject({ analytics: 'granted' });
    expect(toNetwork()).toEqual([]);
    // The watch does see what does go out (a request no cache holds).
    const config = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/config?region=FR`;
    await page.evaluate((url) => fetch(url).then((r) => r.status), config);
    expect(toNetwork()).toEqual([`GET /v1/public/sites/${site.siteKey}/config`]);
    await context.close();
  });
});
