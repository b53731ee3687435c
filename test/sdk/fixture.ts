import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import {
  evidenceOf,
  launchChromium,
  type PageServer,
  type Site,
  shopPage,
  startPageServer,
} from './harness.ts';

export const SHOTS = 'test-results/sdk';
export const BANNER = '[data-consent-banner]';
export const action = (name: string) => `[data-consent-action="${name}"]`;
export const ALL_DENIED: Record<string, string> = {
  ad_storage: 'denied',
  ad_user_data: 'denied',
  ad_personalization: 'denied',
  analytics_storage: 'denied',
  functionality_storage: 'denied',
  personalization_storage: 'denied',
  security_storage: 'denied',
};

export interface VisitOptions {
  context?: BrowserContext;
  gtag?: boolean;
  gpc?: boolean;
  locale?: string;
  width?: number;
  /** A declared region: `data-region` on the script tag (honoured on test channels). */
  region?: string;
  /** A signed-in visitor: `data-identity-token` on the script tag. */
  identityToken?: string;
  storageState?: Awaited<ReturnType<BrowserContext['storageState']>>;
}

/**
 * One service, one page server and one Chromium for a test file (set up in beforeAll); each test
 * opens its own browser context, so cookies, storage and HTTP caches never leak between tests.
 */
export function sdkFixture() {
  const requestOrigins = new WeakMap<BrowserContext, Set<string>>();
  const f = {
    t: undefined as unknown as TestApp,
    key: '',
    pages: undefined as unknown as PageServer,
    browser: undefined as unknown as Browser,

    /** Opens the shop page in a fresh context (or `context`), recording consentservice:change events. */
    async visit(site: Site, options: VisitOptions = {}) {
      const context =
        options.context ??
        (await f.browser.newContext({
          viewport: { width: options.width ?? 1280, height: 800 },
          locale: options.locale ?? 'en-US',
          storageState: options.storageState,
        }));
      if (!options.context) {
        const seen = new Set<string>();
        requestOrigins.set(context, seen);
        context.on('request', (request) => seen.add(new URL(request.url()).origin));
        await context.addInitScript(
          "window.changes = []; document.addEventListener('consentservice:change', (e) => window.changes.push(e.detail));",
        );
        if (options.gpc) {
          await context.addInitScript(
            "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true });",
          );
        }
      }
      const region = options.region ? `-${options.region}` : '';
      const signedIn = options.identityToken ? '-signed-in' : '';
      const path = `/shop-${site.siteKey}-${options.gtag === false ? 'dl' : 'gtag'}${region}${signedIn}.html`;
      const sdkSrc = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`;
      const html = shopPage(sdkSrc, site.siteKey, {
        gtag: options.gtag !== false,
        region: options.region,
        identityToken: options.identityToken,
      });
      f.pages.setPage(path, html);
      const page = await context.newPage();
      await page.goto(f.pages.origin + path);
      return { context, page };
    },

    async subjectIdOf(context: BrowserContext, site: Site): Promise<string> {
      const cookie = (await context.cookies()).find((c) => c.name === `cs_consent_${site.siteKey}`);
      expect(cookie, 'consent cookie').toBeDefined();
      const value = JSON.parse(decodeURIComponent(cookie!.value));
      expect(value.s).toMatch(/^[0-9a-f]{32}$/);
      return value.s;
    },

    /** Waits until the visitor's evidence holds `count` events and returns them, newest first. */
    async recorded(context: BrowserContext, site: Site, count: number) {
      const subjectId = await f.subjectIdOf(context, site);
      let events: Array<Record<string, any>> = [];
      const eventCount = async () => {
        events = await evidenceOf(f.t, f.key, site, subjectId);
        return events.length;
      };
      await expect.poll(eventCount, { timeout: 10_000 }).toBe(count);
      return events;
    },

    ran: (page: Page): Promise<string[]> => page.evaluate('window.ran'),
    gtagCalls: (page: Page): Promise<unknown[][]> => page.evaluate('window.gtagCalls'),
    decisions: (page: Page): Promise<Record<string, string> | null> =>
      page.evaluate('window.ConsentService.getDecisions()'),
    /** Every origin a context has sent a request to (pages, scripts, frames, fetches). */
    requestOrigins: (context: BrowserContext) => [...(requestOrigins.get(context) ?? [])].sort(),
    optionalHits: () => f.pages.hits.filter((p) => p === '/analytics.js' || p === '/ad.html'),
  };

  beforeAll(async () => {
    // The service serves sdk/dist/sdk.js, built from the source under test once per run
    // (test/helpers/sdk-bundles-setup.ts), not once per file.
    fs.mkdirSync(SHOTS, { recursive: true });
    [f.t, f.pages, f.browser] = await Promise.all([
      startTestApp({ env: SITES_TEST_ENV }),
      startPageServer(),
      launchChromium(),
    ]);
    f.key = (await f.t.tenant()).testKey;
  });

  afterAll(async () => {
    await f.browser?.close();
    await f.pages?.close();
    await f.t?.close();
  });

  return f;
}

/** The Consent Mode state where exactly `granted` signals are granted. */
export function consentState(...granted: string[]): Record<string, string> {
  return Object.fromEntries(
    Object.keys(ALL_DENIED).map((s) => [s, granted.includes(s) ? 'granted' : 'denied']),
  );
}
