import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite, type Site } from './harness.ts';
import { JP_NOTICE, NOTICE, regionHelpers, settled } from './regions-helpers.ts';

/**
 * docs/receipts.md: the SDK keeps the receipt URL of the visitor's last delivered
 * decision and links it from the preferences view. One impression
 * per banner (or notice) shown, counted in the service's aggregates.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: receipts and impressions', () => {
  const f = sdkFixture();
  const { visit, recorded } = f;
  const { siteWithRules, visitFrom, expectNoAxeViolations } = regionHelpers(f);
  const PREFS = `${BANNER}[data-consent-view="customize"]`;
  const RECEIPT = `${PREFS} a[data-consent-receipt]`;
  const receiptOf = (page: Page): Promise<string | null> =>
    page.evaluate('window.ConsentService.getReceiptUrl()');

  /** The receipt URL in the 201 of the next decision the page posts. */
  const nextReceipt = (page: Page) =>
    page
      .waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/preferences'))
      .then(async (res) => {
        expect(res.status()).toBe(201);
        return (await res.json()).data.receipt.url as string;
      });

  /** Every impression POST a context sends, with its body and headers. */
  function impressionsOf(context: BrowserContext, site: Site) {
    const sent: Array<{ body: unknown; headers: Promise<Record<string, string>> }> = [];
    context.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes(`/sites/${site.siteKey}/impressions`)) {
        const headers = r.allHeaders();
        // Only a test that reads the headers awaits them (and sees a failure); an impression whose
        // headers no test reads must not become an unhandled rejection once its context closes.
        headers.catch(() => {});
        sent.push({ body: r.postDataJSON(), headers });
      }
    });
    return sent;
  }

  const totals = async (site: Site) => {
    await f.t.app.services.analytics.flushImpressions();
    const query = new URLSearchParams({ channelId: site.channelId });
    const res = await f.t.http.get(`/v1/analytics/consent?${query}`, { key: f.key });
    expect(res.status, res.text).toBe(200);
    return res.body.meta.totals;
  };

  it('after a decision the preferences view links "Your receipt" (the 201 url), kept across reloads; it opens the receipt, and goes nowhere else', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const { context, page } = await visit(site);
    await page.locator(BANNER).waitFor();
    expect(await receiptOf(page)).toBeNull();
    // Before any decision the preferences have no receipt to offer.
    await page.click(action('customize'));
    await page.locator(PREFS).waitFor();
    expect(await page.locator(RECEIPT).count()).toBe(0);

    // Before a decision the visitor has no id yet (the SDK makes one with the first decision).
    expect(await page.evaluate('window.ConsentService.getSubjectId()')).toBeNull();
    const url = nextReceipt(page);
    await page.click(action('accept-all'));
    const receipt = await url;
    // The service's BASE_URL: in tests http://localhost:0 (configured before it listens on a port).
    const base = f.t.config.baseUrl;
    expect(receipt.startsWith(`${base}/v1/public/receipts/`)).toBe(true);
    expect(new URL(receipt).searchParams.get('token')).toBeTruthy();
    await expect.poll(() => receiptOf(page)).toBe(receipt);
    const [event] = await recorded(context, site, 1);
    expect(receipt).toContain(`/receipts/${event.id}?`);
    // getSubjectId() is the id a backend looks the visitor up by (docs/guides/check-consent.md).
    const subjectId = (await page.evaluate('window.ConsentService.getSubjectId()')) as string;
    expect(subjectId).toBe(await f.subjectIdOf(context, site));
    const state = await f.t.http.get(
      `/v1/consent-state?${new URLSearchParams({ channelId: site.channelId, subjectId })}`,
      { key: f.key },
    );
    expect(state.status, state.text).toBe(200);
    expect(Object.values(state.body.data.purposes).every((p: any) => p.decision === 'granted')).toBe(true);

    const link = async (p: Page) => {
      await p.evaluate('window.ConsentService.showPreferences()');
      const a = p.locator(RECEIPT);
      await a.waitFor();
      expect(await a.getAttribute('href')).toBe(receipt);
      expect(await a.getAttribute('target')).toBe('_blank');
      expect(await a.getAttribute('rel')).toBe('noopener noreferrer');
      expect(await a.textContent()).toBe('Your receipt');
      return a;
    };
    await link(page);
    await expectNoAxeViolations(page, BANNER);

    // A reload (and a new tab of the same site) still has it.
    await page.reload();
    await page.waitForFunction(settled);
    expect(await receiptOf(page)).toBe(receipt);
    const a = await link(page);

    // It opens the receipt page in a new tab (BASE_URL's address routed to the test's service).
    await context.route(`${base}/**`, async (route) => {
      const response = await route.fetch({ url: route.request().url().replace(base, f.t.baseUrl) });
      await route.fulfill({ response });
    });
    const [tab, res] = await Promise.all([
      context.waitForEvent('page'),
      context.waitForEvent('response', (r) => r.url() === receipt),
      a.click(),
    ]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(receipt);
    expect(await tab.locator('h1').textContent()).toBe('Your consent receipt');
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^text\/html/);
    const json = await f.t.http.get(receipt.replace(base, ''), {
      headers: { accept: 'application/json' },
    });
    expect(json.status, json.text).toBe(200);
    expect(json.body.data.eventId).toBe(event.id);

    // The capability stayed with the visitor: in no cookie, and in no request to the site.
    const token = new URL(receipt).searchParams.get('token')!;
    expect(JSON.stringify(await context.cookies())).not.toContain(token);
    expect(f.pages.hits.join(' ')).not.toContain(token);
    await context.close();
  });

  it('a decision still queued has no receipt: none is shown until it is delivered, then it replaces the previous one', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const { context, page } = await visit(site);
    const first = nextReceipt(page);
    await page.click(action('accept-all'));
    const before = await first;
    await expect.poll(() => receiptOf(page)).toBe(before);

    // The network drops the next decision: it waits in the queue, and no receipt is offered.
    const preferences = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/preferences`;
    await context.route(`${preferences}*`, (route) => route.abort('internetdisconnected'));
    await page.evaluate('window.ConsentService.showPreferences()');
    await page.click(`${PREFS} ${action('reject-all')}`);
    expect(await receiptOf(page)).toBeNull();
    await page.evaluate('window.ConsentService.showPreferences()');
    await page.locator(PREFS).waitFor();
    expect(await page.locator(RECEIPT).count()).toBe(0);

    // Back online: the retry delivers it, and its receipt replaces the first one.
    const second = nextReceipt(page);
    await context.unroute(`${preferences}*`);
    const after = await second;
    expect(after).not.toBe(before);
    await expect.poll(() => receiptOf(page)).toBe(after);
    await recorded(context, site, 2);
    await context.close();
  });

  it('the receipt link is translated', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const { context, page } = await visit(site, { locale: 'de-DE' });
    await page.click(action('reject-all'));
    await expect.poll(() => receiptOf(page)).not.toBeNull();
    await page.evaluate('window.ConsentService.showPreferences()');
    expect(await page.locator(RECEIPT).textContent()).toBe('Ihre Quittung');
    expect(await page.locator(PREFS).textContent()).toContain('(öffnet in einem neuen Tab)');
    await context.close();
  });

  it('the opt-in banner shown sends exactly one impression; a returning visitor with a valid decision sends none', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const context = await f.browser.newContext({ locale: 'en-US' });
    const sent = impressionsOf(context, site);
    const { page } = await visit(site, { context });
    await page.locator(BANNER).waitFor();
    await expect.poll(() => sent.length).toBe(1);
    expect(sent[0].body).toEqual({ configVersion: site.configVersion, language: 'en' });
    // Nothing identifying: no cookie, no page address.
    const headers = await sent[0].headers;
    expect(headers.cookie).toBeUndefined();
    expect(headers.referer).toBeUndefined();
    // A CORS-simple request (text/plain holding JSON): no preflight before it.
    expect(headers['content-type']).toBe('text/plain');
    // The customize view of the same banner is the same display.
    await page.click(action('customize'));
    await page.click(action('accept-all'));
    await recorded(context, site, 1);

    // The next page and the preferences the visitor opens count nothing.
    await page.reload();
    await page.waitForFunction(settled);
    await page.evaluate('window.ConsentService.showPreferences()');
    await page.locator(PREFS).waitFor();
    await page.waitForTimeout(300);
    expect(sent).toHaveLength(1);
    expect(await totals(site)).toMatchObject({ impressions: 1, decisions: 1, acceptAll: 1 });

    // reset() asks again: a new display, a new impression.
    await page.evaluate('window.ConsentService.reset()');
    await page.locator(`${BANNER}[data-consent-view="banner"]`).waitFor();
    await expect.poll(() => sent.length).toBe(2);
    // The browser has sent it; the service may still be reading it (CI's embedded pass once read 1).
    await expect.poll(async () => (await totals(site)).impressions).toBe(2);
    expect(await totals(site)).toMatchObject({ impressions: 2, decisions: 1 });
    await context.close();
  });

  it('the notice of a notice-only region counts as its banner: one impression until dismissed, then none', async () => {
    const site = await siteWithRules(JP_NOTICE);
    const { context, page, urls } = await visitFrom(site, 'JP');
    const impressions = () =>
      urls.filter((u) => u === `POST /v1/public/sites/${site.siteKey}/impressions?region=JP`).length;
    await page.locator(NOTICE).waitFor();
    await expect.poll(impressions).toBe(1);
    await page.click(`${NOTICE} ${action('dismiss')}`);
    await page.reload();
    await page.waitForFunction(settled);
    await page.waitForTimeout(300);
    expect(await page.locator(NOTICE).count()).toBe(0);
    expect(impressions()).toBe(1);
    const query = new URLSearchParams({ channelId: site.channelId, groupBy: 'regime' });
    await f.t.app.services.analytics.flushImpressions();
    const res = await f.t.http.get(`/v1/analytics/consent?${query}`, { key: f.key });
    expect(res.status, res.text).toBe(200);
    const rows = res.body.data.filter((r: { impressions: number }) => r.impressions > 0);
    expect(rows).toMatchObject([{ regime: 'notice-only', impressions: 1, decisions: 0 }]);
    await context.close();
  });
});
