import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, consentState, sdkFixture } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { CHOICES, LINK, NOTICE, regionHelpers, settled, US_OPT_OUT } from './regions-helpers.ts';

/**
 * docs/regions.md: Global Privacy Control as an opt-out in US opt-out regions, and
 * its unchanged opt-in meaning elsewhere. The browser has the signal both ways a real one does:
 * `navigator.globalPrivacyControl` (init script) and the `Sec-GPC: 1` header on every request.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: GPC in opt-out regions', () => {
  const f = sdkFixture();
  const { recorded, ran, gtagCalls, decisions } = f;
  const { siteWithRules, visitFrom, expectNoAxeViolations } = regionHelpers(f);
  const HONORED = 'Opt-Out Request Honored';
  const adHits = () => f.pages.hits.filter((p) => p === '/ad.html').length;

  it('US-CA with GPC: the opt-out is recorded without a click (source gpc), once per configVersion; a later explicit opt-in is recorded and wins', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const hitsBefore = adHits();
    const { context, page, urls } = await visitFrom(site, 'US-CA', { gpc: true });
    await page.waitForFunction(settled);

    // Recorded by itself: marketing (the gpcOptOut purpose) denied, everything else runs.
    const [gpcEvent] = await recorded(context, site, 1);
    expect(gpcEvent).toMatchObject({
      source: 'gpc',
      gpc: true,
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      configVersion: site.configVersion,
      region: 'US-CA',
      regime: 'opt-out',
    });
    expect(await page.locator(BANNER).count()).toBe(0);
    await expect.poll(() => ran(page)).toHaveLength(3);
    expect((await ran(page)).sort()).toEqual(['analytics-inline', 'analytics-src', 'page']);
    expect(adHits()).toBe(hitsBefore);
    expect((await gtagCalls(page)).at(-1)).toEqual(['consent', 'update', consentState('analytics_storage')]);
    // The posted decision carried the header as a real GPC browser sends it, and the JS signal.
    const posts = urls.filter((u) => u.startsWith(`POST /v1/public/sites/${site.siteKey}/preferences`));
    expect(posts).toHaveLength(1);
    // The notice is shown (the visitor has not seen it: the record was the SDK's) and says so.
    await page.locator(NOTICE).waitFor();
    expect(await page.locator(NOTICE).textContent()).toContain(HONORED);
    await expectNoAxeViolations(page, NOTICE);

    // The next page records nothing more for the same configVersion.
    await page.reload();
    await page.waitForFunction(settled);
    await page.waitForTimeout(300);
    expect(await recorded(context, site, 1)).toHaveLength(1);
    await page.locator(NOTICE).waitFor();

    // The preferences say the signal was honored; the toggle is free (the visitor may opt back in).
    await page.locator(`${NOTICE} ${CHOICES}`).click();
    const view = page.locator(`${BANNER}[data-consent-view="customize"]`);
    await view.waitFor();
    expect(await view.textContent()).toContain(HONORED);
    const marketing = page.locator('input[data-consent-purpose="marketing"]');
    expect(await marketing.isChecked()).toBe(false);
    expect(await marketing.isDisabled()).toBe(false);
    await marketing.check();
    await page.click(action('save'));

    // The explicit opt-in is recorded with the signal still on, and wins: the advert runs.
    // (Both may carry the same recordedAt second, so the newest is found by its source.)
    const optIn = (await recorded(context, site, 2)).find((e) => e.source !== 'gpc');
    expect(optIn).toMatchObject({
      source: 'preference_center',
      gpc: true,
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'granted' },
      regime: 'opt-out',
    });
    expect(await decisions(page)).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'granted',
    });
    await expect.poll(adHits).toBeGreaterThan(hitsBefore);

    // And it keeps winning on the next page: no new GPC record, the advert runs, no "honored" note;
    // the visitor's own choice means they saw the notice, so the button replaces it.
    await page.reload();
    await page.waitForFunction(settled);
    await expect.poll(() => ran(page)).toHaveLength(4);
    await page.waitForTimeout(300);
    expect(await recorded(context, site, 2)).toHaveLength(2);
    expect(await page.locator(NOTICE).count()).toBe(0);
    await page.locator(LINK).click();
    await view.waitFor();
    expect(await view.textContent()).not.toContain(HONORED);
    await context.close();
  });

  it('US-CA with GPC on a new configVersion: the signal is recorded again for it', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const first = await visitFrom(site, 'US-CA', { gpc: true });
    await first.page.waitForFunction(settled);
    await recorded(first.context, site, 1);
    const storageState = await first.context.storageState();
    await first.context.close();
    // A technology is not a material change: the visitor is not asked, but the version is new.
    const res = await f.t.http.post(`/v1/channels/${site.channelId}/technologies`, {
      key: f.key,
      body: { name: 'Ad Pixel', vendor: 'Example Ads', purposeKeys: ['marketing'] },
    });
    expect(res.status, res.text).toBe(201);
    f.t.clock.advance(6000); // past the service's 5 s site cache
    const version = (await f.t.http.get(`/v1/channels/${site.channelId}`, { key: f.key })).body.data
      .configVersion;
    expect(version).toBeGreaterThan(site.configVersion);

    const { context, page } = await visitFrom(site, 'US-CA', { gpc: true, storageState });
    await page.waitForFunction(settled);
    const again = (await recorded(context, site, 2)).find((e) => e.configVersion === version);
    expect(again).toMatchObject({ source: 'gpc', decisions: { marketing: 'denied' } });
    await context.close();
  });

  it('FR with GPC on the same channel: the opt-in banner as before, the signal keeps marketing off', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const { context, page } = await visitFrom(site, 'FR', { gpc: true });
    await page.locator(BANNER).waitFor();
    expect(await page.locator(BANNER).getAttribute('data-consent-view')).toBe('banner');
    expect(await ran(page)).toEqual(['page']);
    expect(await page.locator(BANNER).textContent()).toContain('Global Privacy Control signal');
    await page.click(action('customize'));
    const marketing = page.locator('input[data-consent-purpose="marketing"]');
    expect(await marketing.isDisabled()).toBe(true);
    expect(await page.locator(BANNER).textContent()).not.toContain(HONORED);
    await page.click(action('save'));
    const [event] = await recorded(context, site, 1);
    expect(event).toMatchObject({
      source: 'banner',
      gpc: true,
      regime: 'opt-in',
      decisions: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
    });
    await page.reload();
    await page.waitForFunction(settled);
    expect(await decisions(page)).toMatchObject({ marketing: 'denied' });
    await context.close();
  });
});
