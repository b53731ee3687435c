import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, describeViolations } from './axe.ts';
import { action, type sdkFixture } from './fixture.ts';
import { createSite, type Site } from './harness.ts';

/** Shared by the Chromium tests of regions (docs/regions.md): selectors, rules, helpers. */
export const NOTICE = '[data-consent-notice]';
export const CHOICES = action('privacy-choices');
export const LINK = '[data-consent-choices]';
export const US_OPT_OUT = [
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['*'], regime: 'opt-in' },
];
export const JP_NOTICE = [
  { regions: ['JP'], regime: 'notice-only' },
  { regions: ['*'], regime: 'opt-in' },
];
export const EVERYTHING_RAN = ['analytics-inline', 'analytics-src', 'marketing-inline', 'page'];
export const DAY_MS = 24 * 60 * 60 * 1000;
export const settled = 'window.ConsentService && window.ConsentService.getDecisions() !== null';

export function regionHelpers(f: ReturnType<typeof sdkFixture>) {
  const { visit } = f;
  const channel = (site: Site) => `/v1/channels/${site.channelId}`;

  /** A ready site whose channel has `rules`; returns it with the configVersion the rules made. */
  async function siteWithRules(rules: unknown): Promise<Site> {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const res = await f.t.http.patch(channel(site), { key: f.key, body: { regionRules: rules } });
    expect(res.status, res.text).toBe(200);
    return { ...site, configVersion: res.body.data.configVersion };
  }

  /**
   * The shop page from a declared region, in a fresh context that records every URL it requests (to
   * see `?region=` on the SDK's requests) and the consentservice:change events.
   */
  async function visitFrom(
    site: Site,
    region: string,
    options: {
      locale?: string;
      colorScheme?: 'light' | 'dark';
      storageState?: Awaited<ReturnType<BrowserContext['storageState']>>;
      /** A browser with Global Privacy Control on: the JS signal and the `Sec-GPC: 1` header agree. */
      gpc?: boolean;
    } = {},
  ) {
    const context = await f.browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: options.locale ?? 'en-US',
      colorScheme: options.colorScheme ?? 'light',
      storageState: options.storageState,
      extraHTTPHeaders: options.gpc ? { 'Sec-GPC': '1' } : undefined,
    });
    if (options.gpc) {
      await context.addInitScript(
        "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true });",
      );
    }
    const urls: string[] = [];
    context.on('request', (r) => urls.push(`${r.method()} ${r.url().replace(f.t.baseUrl, '')}`));
    await context.addInitScript(
      "window.changes = []; document.addEventListener('consentservice:change', (e) => window.changes.push(e.detail));",
    );
    const { page } = await visit(site, { region, context });
    return { context, page, urls };
  }

  /** The config answer for a declared region, straight from the service. */
  async function configFor(site: Site, region: string) {
    const res = await f.t.http.get(`/v1/public/sites/${site.siteKey}/config?region=${region}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  }

  async function expectNoAxeViolations(page: Page, selector: string) {
    const violations = await axeViolations(page, selector);
    expect(violations, describeViolations(violations)).toEqual([]);
  }

  async function noEvidence(site: Site) {
    const query = new URLSearchParams({ channelId: site.channelId });
    const res = await f.t.http.get(`/v1/evidence?${query}`, { key: f.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual([]);
  }

  const consentCookie = async (page: Page, site: Site) =>
    (await page.context().cookies()).find((c) => c.name === `cs_consent_${site.siteKey}`);

  return { channel, siteWithRules, visitFrom, configFor, expectNoAxeViolations, noEvidence, consentCookie };
}
