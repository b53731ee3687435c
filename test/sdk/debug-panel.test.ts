import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { BANNER, SHOTS, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite, type Site, shopPage } from './harness.ts';
import { regionHelpers, US_OPT_OUT } from './regions-helpers.ts';

/** The panel's host; Playwright's CSS selectors reach into its (open) shadow root. */
const PANEL = '[data-consent-debug] [role="dialog"]';
const inPanel = (selector: string) => `[data-consent-debug] ${selector}`;
const panelAction = (name: string) => inPanel(`[data-debug-action="${name}"]`);
const started = 'window.ConsentService !== undefined';

describe.skipIf(skipWith(browserSkipReason))(
  'browser SDK in Chromium against the real service: the developer panel',
  () => {
    const f = sdkFixture();
    const { siteWithRules } = regionHelpers(f);

    /** The shop page in a fresh context, with `hash` on its URL; every URL it requests is kept. */
    async function open(site: Pick<Site, 'siteKey'>, options: { hash?: string; width?: number } = {}) {
      const context = await f.browser.newContext({
        viewport: { width: options.width ?? 1280, height: 800 },
        locale: 'en-US',
      });
      const requests: string[] = [];
      context.on('request', (request) => requests.push(request.url()));
      const path = `/debug-${site.siteKey}.html`;
      f.pages.setPage(
        path,
        shopPage(`${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`, site.siteKey, { gtag: true }),
      );
      const page = await context.newPage();
      await page.goto(`${f.pages.origin}${path}${options.hash ?? ''}`);
      return { context, page, requests, url: `${f.pages.origin}${path}` };
    }

    const text = (page: Page, selector: string) => page.locator(inPanel(selector)).textContent();
    const states = (page: Page) =>
      page
        .locator(inPanel('[data-debug="elements"] li'))
        .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-state')} ${el.textContent}`));
    const timeline = (page: Page) =>
      page
        .locator(inPanel('[data-debug="timeline"] li'))
        .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-kind')}: ${el.textContent}`));

    it('#cs_debug opens it: the stored choice, each blocked element not run then run after Accept all, the timeline, Reset asks again', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page, requests } = await open(site, { hash: '#cs_debug' });
      await page.locator(PANEL).waitFor();
      await page.locator(BANNER).waitFor();
      expect(requests.filter((url) => url.includes('/debug.js'))).toEqual([
        `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/debug.js`,
      ]);
      await expect.poll(() => text(page, '[data-debug="outcome"]')).toBe('No choice stored');
      await expect
        .poll(() => states(page))
        .toEqual([
          'blocked inline script "window.ran.push(\'analytics-inline\')" (analytics): not run',
          'blocked script /analytics.js (analytics): not run',
          'blocked inline script "window.ran.push(\'marketing-inline\')" (marketing): not run',
          'blocked iframe /ad.html (marketing): not loaded',
        ]);

      await page.screenshot({ path: `${SHOTS}/debug-panel-1280.png` });
      await page.click(panelAction('accept-all'));
      await expect.poll(() => f.ran(page)).toHaveLength(4);
      await expect
        .poll(() => states(page))
        .toEqual([
          'ran inline script "window.ran.push(\'analytics-inline\')" (analytics): ran',
          'ran script /analytics.js (analytics): ran',
          'ran inline script "window.ran.push(\'marketing-inline\')" (marketing): ran',
          'ran iframe /ad.html (marketing): loaded',
        ]);
      expect(await page.locator(BANNER).count()).toBe(0);
      const [event] = await f.recorded(context, site, 1);
      expect(event).toMatchObject({
        source: 'api',
        decisions: { analytics: 'granted', marketing: 'granted' },
      });
      await expect.poll(() => text(page, '[data-debug="outcome"]')).toBe('Accepted all');
      const stored = await text(page, '[data-debug="stored"]');
      expect(stored).toContain('analytics: granted');
      expect(stored).toContain(`Config version${site.configVersion}`);
      const firstSubject = await f.subjectIdOf(context, site);
      expect(stored).toContain(firstSubject);

      const events = await timeline(page);
      expect(events.some((e) => /^consent-mode: .*Consent Mode default: every signal denied$/.test(e))).toBe(
        true,
      );
      expect(events.some((e) => /^shown: .*The banner shown \(before the panel opened\)$/.test(e))).toBe(
        true,
      );
      expect(events.some((e) => /^decided: .*Accepted all \(source: api\)$/.test(e))).toBe(true);
      expect(
        events.some((e) => /^consent-mode: .*Consent Mode update: granted .*analytics_storage/.test(e)),
      ).toBe(true);

      // Reset forgets the choice here and shows the banner again; Reject all then records a refusal.
      await page.click(panelAction('reset'));
      await page.locator(BANNER).waitFor();
      await expect.poll(() => text(page, '[data-debug="outcome"]')).toBe('No choice stored');
      await expect
        .poll(() => timeline(page))
        .toEqual(expect.arrayContaining([expect.stringMatching(/^shown: .*The banner shown$/)]));
      await page.click(panelAction('reject-all'));
      await expect.poll(() => text(page, '[data-debug="outcome"]')).toBe('Rejected all');
      // Reset forgot the visitor's id too: the refusal is the first decision of a new subject.
      const [rejected] = await f.recorded(context, site, 1);
      expect(await f.subjectIdOf(context, site)).not.toBe(firstSubject);
      expect(rejected).toMatchObject({
        source: 'api',
        decisions: { analytics: 'denied', marketing: 'denied' },
      });
      await context.close();
    });

    it('the region override: a US state declared in the panel reloads the page in the opt-out regime, kept for the tab until cleared', async () => {
      const site = await siteWithRules(US_OPT_OUT);
      const { context, page, requests, url } = await open(site, { hash: '#cs_debug' });
      await page.locator(PANEL).waitFor();
      await expect.poll(() => text(page, '[data-debug="regime"]')).toBe('opt-in');
      expect(await text(page, '[data-debug="region-code"]')).toBe('unknown');
      expect(await text(page, '[data-debug="override"]')).toBe('none');

      await page.fill(inPanel('input'), 'Narnia');
      await page.click(panelAction('override'));
      await expect.poll(() => text(page, '[role="status"]')).toContain('Not a region code');

      await page.fill(inPanel('input'), 'us-ca');
      await Promise.all([page.waitForEvent('load'), page.click(panelAction('override'))]);
      await page.locator(PANEL).waitFor();
      await expect.poll(() => text(page, '[data-debug="regime"]')).toBe('opt-out');
      expect(await text(page, '[data-debug="region-code"]')).toBe('US-CA');
      expect(await text(page, '[data-debug="override"]')).toBe('US-CA');
      expect(requests).toContain(`${f.t.baseUrl}/v1/public/sites/${site.siteKey}/config?region=US-CA`);

      // Another page of the tab, without #cs_debug: the override holds, and the panel says so.
      await page.goto(url);
      await page.locator(PANEL).waitFor();
      await expect.poll(() => text(page, '[data-debug="regime"]')).toBe('opt-out');
      expect(await text(page, '[data-debug="override"]')).toBe('US-CA');

      await page.goto(`${url}#cs_debug`);
      await page.locator(PANEL).waitFor();
      await Promise.all([page.waitForEvent('load'), page.click(panelAction('clear-override'))]);
      await page.locator(PANEL).waitFor();
      await expect.poll(() => text(page, '[data-debug="regime"]')).toBe('opt-in');
      expect(await text(page, '[data-debug="override"]')).toBe('none');
      await context.close();
    });

    it('ConsentService.debug() opens it; no axe-core violations; it fits 390 px; Escape closes it and Tab leaves it', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await open(site, { width: 390 });
      await page.locator(BANNER).waitFor();
      await page.evaluate('window.ConsentService.debug()');
      await page.locator(PANEL).waitFor();
      await expect.poll(() => text(page, '[data-debug="outcome"]')).toBe('No choice stored');

      // What the SDK says went wrong is on the timeline too: here a refused identity token.
      expect(await page.evaluate("window.ConsentService.identify('not-a-token')")).toBe(false);
      await expect
        .poll(() => timeline(page))
        .toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^error: .*identity token not accepted: HTTP 4\d\d$/),
          ]),
        );

      const violations = await axeViolations(page, '[data-consent-debug]');
      expect(violations, describeViolations(violations)).toEqual([]);
      const box = await page.locator(PANEL).boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await page.locator(PANEL).evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await page.screenshot({ path: `${SHOTS}/debug-panel-390.png` });

      // The panel's last stop (its timeline, which scrolls), then Tab: focus goes on into the page.
      const last = page.locator(inPanel('[role="log"]'));
      await last.focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate("document.activeElement.hasAttribute('data-consent-debug')")).toBe(false);

      await page.locator(panelAction('accept-all')).focus();
      await page.keyboard.press('Escape');
      await page.locator(PANEL).waitFor({ state: 'detached' });
      // Opened again, it has kept its timeline.
      await page.evaluate('window.ConsentService.debug()');
      await page.locator(PANEL).waitFor();
      expect((await timeline(page)).length).toBeGreaterThan(0);
      await context.close();
    });

    it('a live channel: #cs_debug and ConsentService.debug() load nothing, and debug.js for its site key is a 404 problem', async () => {
      const { liveKey } = await f.t.tenant();
      const site = await createReadySite(f.t, liveKey);
      const added = await f.t.http.post(`/v1/channels/${site.channelId}/origins`, {
        key: liveKey,
        body: { origin: f.pages.origin },
      });
      expect(added.status, added.text).toBe(201);

      const { context, page, requests } = await open(site, { hash: '#cs_debug' });
      await page.locator(BANNER).waitFor();
      await page.waitForFunction(started);
      // The SDK decides whether to load debug.js as it starts, and appends its script then.
      expect(await page.evaluate('window.ConsentService.debug()')).toBe(false);
      expect(await page.locator('script[src*="/debug.js"]').count()).toBe(0);
      expect(await page.locator('[data-consent-debug]').count()).toBe(0);
      expect(requests.filter((url) => url.includes('/debug.js'))).toEqual([]);
      await context.close();

      const refused = await f.t.http.get(`/v1/public/sites/${site.siteKey}/debug.js`);
      const problem = expectProblemShape(refused, 404, 'not_found');
      expect(problem.detail).toContain('test channels only');
      const served = await f.t.http.get(
        `/v1/public/sites/${(await createReadySite(f.t, f.key)).siteKey}/debug.js`,
      );
      expect(served.status).toBe(200);
      expect(served.text).toContain('__consentServiceDebug');
    });
  },
);
