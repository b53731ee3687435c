import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/app.ts';
import { createReadySite, type ReadySite } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { ALL_DENIED, action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, evidenceOf, shopPage } from './harness.ts';

/**
 * The SDK runs only on a page whose origin the channel accepts (design rule 19, fail closed). sdk.js
 * carries the config, so nothing fails by itself on a foreign page any more: before this check, a live
 * channel's banner showed there, the visitor's Accept ran the blocked scripts and granted Consent
 * Mode, and the decision's POST was refused by CORS, so no evidence was kept. Test channels accept
 * pages on http://localhost and http://127.0.0.1 (any port) without registering them; live channels
 * never do.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK: the page origin check', () => {
  const f = sdkFixture();
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await f.t.tenant();
  });

  /** The page server under another host name for the same address. */
  const atLocalhost = () => f.pages.origin.replace('127.0.0.1', 'localhost');

  /**
   * Opens the shop page of `site` at `origin` (the page server under that name), recording the
   * console's warnings and every request the page makes to the service. The async sdk.js holds the
   * load event, and the SDK draws its banner in the task that evaluates it, so once `goto` returns
   * the SDK has decided what to show.
   */
  async function visitAt(site: ReadySite, origin: string, storageState?: StorageState) {
    const context = await f.browser.newContext({ locale: 'en-US', storageState });
    const warnings: string[] = [];
    const serviceRequests: string[] = [];
    const pageRequests: string[] = [];
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === f.t.baseUrl) serviceRequests.push(`${request.method()} ${url.pathname}`);
      else pageRequests.push(url.pathname);
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    const path = `/origin-${site.siteKey}.html`;
    f.pages.setPage(
      path,
      shopPage(`${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`, site.siteKey, { gtag: true }),
    );
    await page.goto(origin + path);
    return { context, page, warnings, serviceRequests, pageRequests };
  }
  type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

  /** Clicks Accept all and waits for the visitor's decision in the evidence, which it returns. */
  async function acceptAndRecord(context: BrowserContext, page: Page, site: ReadySite) {
    await page.click(action('accept-all'));
    const subjectId = await f.subjectIdOf(context, site);
    let events: Array<Record<string, any>> = [];
    await expect
      .poll(
        async () => {
          events = await evidenceOf(f.t, site.key, site, subjectId);
          return events.length;
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    return events[0];
  }

  /** The impressions counted for the site's channel so far. */
  async function impressions(site: ReadySite): Promise<number> {
    await f.t.app.services.analytics.flushImpressions();
    const query = new URLSearchParams({ channelId: site.channelId });
    const res = await f.t.http.get(`/v1/analytics/consent?${query}`, { key: site.key });
    expect(res.status, res.text).toBe(200);
    return res.body.meta.totals.impressions;
  }

  /** Nothing shown, nothing optional run or granted, nothing sent; one warning naming the fix. */
  async function expectNothingRan(
    visit: Awaited<ReturnType<typeof visitAt>>,
    site: ReadySite,
    origin: string,
  ) {
    const { page, warnings, serviceRequests, pageRequests } = visit;
    expect(await page.locator(BANNER).count(), 'banner on a foreign origin').toBe(0);
    expect(await page.locator('[data-consent-notice]').count()).toBe(0);
    const warning = warnings.find((w) => w.includes('[consent-service]'));
    expect(warning, `warnings: ${JSON.stringify(warnings)}`).toBeDefined();
    expect(warning).toContain(origin);
    expect(warning).toContain(`POST ${f.t.baseUrl}/v1/channels/${site.channelId}/origins`);
    expect(warning).toContain(JSON.stringify({ origin }));

    // The page's own API applies nothing either.
    await page.evaluate('window.ConsentService.acceptAll(); window.ConsentService.showPreferences()');
    await page.waitForTimeout(300);
    expect(await page.locator(BANNER).count()).toBe(0);
    expect(await f.decisions(page)).toBeNull();
    expect(await f.ran(page)).toEqual(['page']);
    expect(await page.locator('iframe[data-consent-purpose]').getAttribute('src')).toBeNull();
    // Consent Mode stays at its denied defaults: no grant, no update.
    expect(await f.gtagCalls(page)).toEqual([['consent', 'default', ALL_DENIED]]);
    expect(await page.evaluate('window.__gpp === undefined && window.__tcfapi === undefined')).toBe(true);
    // sdk.js alone: no impression, no decision, no config request.
    expect(serviceRequests).toEqual([`GET /v1/public/sites/${site.siteKey}/sdk.js`]);
    // The page alone: the blocked script's src and the iframe's page were never fetched.
    expect(pageRequests).toEqual([`/origin-${site.siteKey}.html`]);
  }

  it('a live channel on an origin it does not list: no banner, nothing run, a warning with the origin and the call', async () => {
    // Registered: https://shop.example.com and https://*.example.org only.
    const site = await createReadySite(f.t, tenant.liveKey);
    for (const origin of [atLocalhost(), f.pages.origin]) {
      const visit = await visitAt(site, origin);
      await expectNothingRan(visit, site, origin);
      await visit.context.close();
    }
  });

  it('a live channel on a registered origin works and records evidence; on localhost, unregistered, it does not run', async () => {
    const site = await createReadySite(f.t, tenant.liveKey);
    const added = await f.t.http.post(`/v1/channels/${site.channelId}/origins`, {
      key: tenant.liveKey,
      body: { origin: f.pages.origin },
    });
    expect(added.status, added.text).toBe(201);

    const visit = await visitAt(site, f.pages.origin);
    await visit.page.locator(BANNER).waitFor();
    expect(visit.warnings.filter((w) => w.includes('[consent-service]'))).toEqual([]);
    const event = await acceptAndRecord(visit.context, visit.page, site);
    expect(event).toMatchObject({ origin: f.pages.origin, environment: 'live', source: 'banner' });
    await expect.poll(() => f.ran(visit.page)).toHaveLength(4);
    const storageState = await visit.context.storageState();
    await visit.context.close();

    // The same address under the name localhost is another origin, which a live channel never accepts.
    const local = await visitAt(site, atLocalhost());
    await expectNothingRan(local, site, atLocalhost());
    await local.context.close();

    // Once the origin is archived, a returning visitor's stored grant is not applied there either
    // (a new context: the stored decision without the HTTP cache of the old sdk.js).
    const origins = await f.t.http.get(`/v1/channels/${site.channelId}/origins`, { key: tenant.liveKey });
    const id = origins.body.data.find((o: { origin: string }) => o.origin === f.pages.origin).id;
    const archived = await f.t.http.post(`/v1/channels/${site.channelId}/origins/${id}/archive`, {
      key: tenant.liveKey,
    });
    expect(archived.status, archived.text).toBe(200);
    const returning = await visitAt(site, f.pages.origin, storageState);
    await expectNothingRan(returning, site, f.pages.origin);
    await returning.context.close();
  });

  it('a test channel runs on http://localhost and http://127.0.0.1 at any port without registering them, and records evidence', async () => {
    for (const origin of [atLocalhost(), f.pages.origin]) {
      // Registered: https://shop.example.com and https://*.example.org only.
      const site = await createReadySite(f.t, tenant.testKey);
      const visit = await visitAt(site, origin);
      await visit.page.locator(BANNER).waitFor();
      expect(await f.ran(visit.page)).toEqual(['page']);
      const event = await acceptAndRecord(visit.context, visit.page, site);
      expect(event).toMatchObject({
        origin,
        environment: 'test',
        decisions: { necessary: 'granted', analytics: 'granted', marketing: 'granted' },
      });
      await expect.poll(() => f.ran(visit.page)).toHaveLength(4);
      // The banner's impression, a public POST from the same unregistered page, was counted too.
      await expect.poll(() => impressions(site), { timeout: 10_000 }).toBe(1);
      expect(visit.warnings.filter((w) => w.includes('[consent-service]'))).toEqual([]);
      await visit.context.close();
    }
  });
});
