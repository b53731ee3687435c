import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { ALL_DENIED, action, BANNER, consentState, sdkFixture } from '../sdk/fixture.ts';
import { browserSkipReason, createSite, type Site, shopPage } from '../sdk/harness.ts';
import { installThrowawayApp, type ThrowawayApp } from './throwaway-app.ts';

/**
 * One set of banner checks, run twice: once through the snippet (the shop page's `<script src=…/sdk.js>`)
 * and once through @consent-service/browser, installed from its tarball and bundled by esbuild into
 * the same page in the snippet's place, as `window.ConsentService = createConsent(…)`. The page, its
 * blocked scripts and every assertion are the same, so the two ways cannot behave differently unseen.
 */

/** The page's entry for the package way: the site from its own script element's data attributes. */
const PACKAGE_ENTRY = `
import { createConsent } from '@consent-service/browser';
const { baseUrl, siteKey } = document.currentScript.dataset;
window.ConsentService = createConsent({ baseUrl, siteKey });
`;
const SNIPPET_TAG = /<script src="[^"]+\/sdk\.js" data-site-key="[^"]+" async><\/script>/;
const ALL_GRANTED = { necessary: 'granted', analytics: 'granted', marketing: 'granted' };
const ALL_REJECTED = { necessary: 'granted', analytics: 'denied', marketing: 'denied' };

describe.skipIf(skipWith(browserSkipReason))(
  'the banner, through the snippet and through the package',
  () => {
    let installing: Promise<ThrowawayApp>;
    let app: ThrowawayApp;
    let bundle = '';
    beforeAll(() => {
      // The browser package alone: it has no dependencies, so nothing comes from the registry.
      installing = installThrowawayApp({ packages: ['browser'], registry: [] });
      installing.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    });
    const f = sdkFixture();
    beforeAll(async () => {
      app = await installing;
      app.write({ 'entry.js': PACKAGE_ENTRY });
      bundle = (await app.bundle('entry.js')).code;
    }, 300_000);
    afterAll(() => app?.remove());

    for (const way of ['snippet', 'package'] as const) {
      /** Opens the shop page the `way` under test, in a new context (or `context`: a returning visitor). */
      async function visit(site: Site, existing?: BrowserContext) {
        const context = existing ?? (await f.browser.newContext({ locale: 'en-US' }));
        if (!existing) {
          await context.addInitScript(
            "window.changes = []; document.addEventListener('consentservice:change', (e) => window.changes.push(e.detail));",
          );
        }
        const sdkRequests: string[] = [];
        context.on('request', (request) => {
          if (new URL(request.url()).pathname.endsWith('/sdk.js')) sdkRequests.push(request.url());
        });
        let html = shopPage(`${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`, site.siteKey, {
          gtag: true,
        });
        if (way === 'package') {
          const code = bundle.replaceAll('</script', '<\\/script'); // inline: no early end of the element
          const inline = `<script data-base-url="${f.t.baseUrl}" data-site-key="${site.siteKey}">${code}</script>`;
          expect(html).toMatch(SNIPPET_TAG);
          html = html.replace(SNIPPET_TAG, () => inline);
        }
        const path = `/both-ways-${way}-${site.siteKey}.html`;
        f.pages.setPage(path, html);
        const page = await context.newPage();
        await page.goto(f.pages.origin + path);
        return { context, page, sdkRequests };
      }

      describe(`through the ${way}`, () => {
        it('asks a first-time visitor: the banner, nothing blocked run, Consent Mode denied', async () => {
          const site = await createSite(f.t, f.key, f.pages.origin);
          const { context, page, sdkRequests } = await visit(site);
          await page.locator(BANNER).waitFor();
          expect(await page.locator(BANNER).getAttribute('role')).toBe('dialog');
          expect(await page.locator(BANNER).count()).toBe(1);
          expect(await f.ran(page)).toEqual(['page']);
          expect(await f.gtagCalls(page)).toEqual([['consent', 'default', ALL_DENIED]]);
          expect(await f.decisions(page)).toBeNull();
          // The way under test is the one that ran: the package page never asks for sdk.js.
          expect(sdkRequests.length).toBe(way === 'snippet' ? 1 : 0);
          await context.close();
        });

        it('accept all: recorded with the service, every blocked script runs, kept on the next page', async () => {
          const site = await createSite(f.t, f.key, f.pages.origin);
          const { context, page } = await visit(site);
          await page.click(action('accept-all'));
          const [event] = await f.recorded(context, site, 1);
          expect(event).toMatchObject({ decisions: ALL_GRANTED, source: 'banner', origin: f.pages.origin });
          await expect.poll(() => f.ran(page)).toHaveLength(4);
          expect(await f.decisions(page)).toEqual(ALL_GRANTED);
          expect((await f.gtagCalls(page)).at(-1)).toEqual([
            'consent',
            'update',
            consentState('ad_storage', 'ad_user_data', 'ad_personalization', 'analytics_storage'),
          ]);
          expect(await page.evaluate('window.changes')).toEqual([
            { decisions: ALL_GRANTED, configVersion: site.configVersion },
          ]);
          // A returning visitor: no banner, the decision applied, nothing recorded again.
          const again = await visit(site, context);
          await expect.poll(() => f.decisions(again.page)).toEqual(ALL_GRANTED);
          expect(await again.page.locator(BANNER).count()).toBe(0);
          expect((await f.ran(again.page)).sort()).toEqual([
            'analytics-inline',
            'analytics-src',
            'marketing-inline',
            'page',
          ]);
          expect(await f.recorded(context, site, 1)).toHaveLength(1);
          await context.close();
        });

        it('reject all: recorded as denials, nothing optional runs', async () => {
          const site = await createSite(f.t, f.key, f.pages.origin);
          const { context, page } = await visit(site);
          await page.click(action('reject-all'));
          await expect.poll(() => page.locator(BANNER).count()).toBe(0);
          const [event] = await f.recorded(context, site, 1);
          expect(event).toMatchObject({ decisions: ALL_REJECTED, source: 'banner' });
          expect(await f.decisions(page)).toEqual(ALL_REJECTED);
          expect(await f.ran(page)).toEqual(['page']);
          expect((await f.gtagCalls(page)).at(-1)).toEqual(['consent', 'update', consentState()]);
          await context.close();
        });

        it('the preferences reopen with the choice made, and a change there is recorded', async () => {
          const site = await createSite(f.t, f.key, f.pages.origin);
          const { context, page } = await visit(site);
          await page.click(action('reject-all'));
          await f.recorded(context, site, 1);
          f.t.clock.advance(1000); // the evidence list is newest first: keep the two recordedAt apart
          await page.evaluate('window.ConsentService.showPreferences()');
          const analytics = page.locator('input[data-consent-purpose="analytics"]');
          await analytics.waitFor();
          expect(await analytics.isChecked()).toBe(false);
          await analytics.check();
          await page.click(action('save'));
          const [latest] = await f.recorded(context, site, 2);
          expect(latest).toMatchObject({
            decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
            source: 'preference_center',
          });
          await expect.poll(() => f.ran(page)).toHaveLength(3);
          expect((await f.ran(page)).sort()).toEqual(['analytics-inline', 'analytics-src', 'page']);
          await context.close();
        });
      });
    }
  },
);
