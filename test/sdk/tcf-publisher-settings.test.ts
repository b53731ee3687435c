import { RestrictionType } from '@iabtechlabtcf/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAtpList } from '../helpers/atp.ts';
import { buildVendorList, TEST_VENDORS } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { action } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { decodeTc, heard, LAYERS, TCF_SETTINGS, tcfapi, tcfFixture, VENDOR_IDS } from './tcf-helpers.ts';

/**
 * docs/guides/tcf.md, "Publisher restrictions", "The channel's own purposes in
 * the string": what the layers offer follows the channel's publisher restrictions, and the string
 * carries the channel's purposes as custom purposes of the Publisher TC segment. Every string is
 * read with IAB's own decoder (@iabtechlabtcf/core).
 *
 * The vendor list gains two flexible vendors: 60 asks consent for purpose 2 (flexible), 61 claims a
 * legitimate interest for purpose 7 (flexible).
 */
const FLEXIBLE = [
  { id: 60, name: 'Flexible Consent Ltd', purposes: [2], flexiblePurposes: [2], specialPurposes: [1] },
  { id: 61, name: 'Flexible Interest Ltd', legIntPurposes: [7], flexiblePurposes: [7], specialPurposes: [1] },
];
const VENDORS = [...VENDOR_IDS, 60, 61];
const RESTRICTIONS = [
  // Vendor 1 claims legitimate interest for 7 and 10 only: forbidden both, it has none left.
  { purposeId: 7, type: 'not_allowed', vendorIds: [1] },
  { purposeId: 10, type: 'not_allowed', vendorIds: [1] },
  { purposeId: 2, type: 'require_li', vendorIds: [60] },
  { purposeId: 7, type: 'require_consent', vendorIds: [61] },
];

describe.skipIf(skipWith(browserSkipReason))('publisher settings in the layers and the string', () => {
  const f = tcfFixture();

  beforeAll(async () => {
    f.gvl.publish(buildVendorList({ version: 101, vendors: [...TEST_VENDORS, ...FLEXIBLE] }));
    await refreshVendorList(f.t);
    await loadAtpList(f.t);
  });

  it('restrictions: a purpose not allowed is not offered, require_consent shows consent, require_li the objection; "Accept all" follows', async () => {
    const site = await f.tcfSite({
      ...TCF_SETTINGS,
      vendorIds: VENDORS,
      publisherRestrictions: RESTRICTIONS,
    });
    const visit = await f.visit(site, 'FR');
    const { page, context } = visit;
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    await page.click(`${LAYERS} ${action('customize')}`);
    await page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
    const has = (attr: string, id: number) => page.locator(`${LAYERS} input[${attr}="${id}"]`).count();
    // Vendor 1: consent still asked (purposes 1–4), no legitimate interest to object to.
    expect(await has('data-tcf-vendor-consent', 1)).toBe(1);
    expect(await has('data-tcf-vendor-li', 1)).toBe(0);
    // Vendor 60: purpose 2 on legitimate interest only.
    expect(await has('data-tcf-vendor-consent', 60)).toBe(0);
    expect(await has('data-tcf-vendor-li', 60)).toBe(1);
    // Vendor 61: purpose 7 on consent only.
    expect(await has('data-tcf-vendor-consent', 61)).toBe(1);
    expect(await has('data-tcf-vendor-li', 61)).toBe(0);
    // The vendor's details say so too.
    const details60 = await page.locator(`${LAYERS} [data-tcf-vendor="60"] details`).textContent();
    expect(details60).toContain('Purposes (legitimate interest): Use limited data to select advertising');
    expect(details60).not.toContain('Purposes (consent)');

    await page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    const decoded = decodeTc(tcString);
    expect(decoded.vendorConsents).toEqual([1, 2, 8, 21, 32, 61]);
    expect(decoded.vendorLegitimateInterests).toEqual([2, 8, 21, 32, 60]);
    expect(decoded.vendorsDisclosed).toEqual(VENDORS);
    const restrictions = decoded.model.publisherRestrictions;
    expect(restrictions.getRestrictionType(1, 7)).toBe(RestrictionType.NOT_ALLOWED);
    expect(restrictions.getRestrictionType(1, 10)).toBe(RestrictionType.NOT_ALLOWED);
    expect(restrictions.getRestrictionType(60, 2)).toBe(RestrictionType.REQUIRE_LI);
    expect(restrictions.getRestrictionType(61, 7)).toBe(RestrictionType.REQUIRE_CONSENT);
    // The service recorded it (its restrictions are the channel's).
    const [event] = await f.recorded(context, site, 1);
    expect(event.tcString).toBe(tcString);
    // The channel's three purposes, all granted, as custom purposes 1–3.
    expect(decoded.model.numCustomPurposes).toBe(3);
    expect([...decoded.model.publisherCustomConsents.values()]).toEqual([1, 2, 3]);
    expect(event.tcf.publisherCustomConsents).toEqual([1, 2, 3]);
    await context.close();
  });

  it('the channel’s purposes (necessary, analytics, marketing) in the Publisher TC segment, as the visitor chose them', async () => {
    const site = await f.tcfSite();
    const { page, context } = await f.visit(site, 'FR');
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    // cmpuishown: nothing chosen yet, no custom purpose granted.
    const shown = decodeTc((await heard(page, 'cmpuishown')).tcString).model;
    expect(shown.numCustomPurposes).toBe(3);
    expect([...shown.publisherCustomConsents.values()]).toEqual([]);
    await page.click(`${LAYERS} ${action('customize')}`);
    await page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
    await page.locator(`${LAYERS} input[data-consent-purpose="marketing"]`).check();
    await page.click(`${LAYERS} ${action('save')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    const { model } = decodeTc(tcString);
    expect(model.numCustomPurposes).toBe(3);
    // Custom purpose 1 is necessary (always granted), 2 analytics (left off), 3 marketing.
    expect([...model.publisherCustomConsents.values()].sort()).toEqual([1, 3]);
    expect([...model.publisherCustomLegitimateInterests.values()]).toEqual([]);
    const [event] = await f.recorded(context, site, 1);
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'denied', marketing: 'granted' });
    expect(event.tcf.publisherCustomConsents).toEqual([1, 3]);
    await context.close();
  });

  it('Google Additional Consent: providers listed in the layers, the AC string (version 2) in TCData, posted and kept in the evidence', async () => {
    const site = await f.tcfSite({
      ...TCF_SETTINGS,
      googleAdditionalConsent: { providerIds: [2822, 89, 1301] },
    });
    const { page, context, posts } = await f.visit(site, 'FR');
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    await heard(page, 'cmpuishown');
    // Shown, nothing chosen: every provider disclosed, none consented.
    expect((await tcfapi(page, 'getTCData')).value.addtlConsent).toBe('2~~dv.89.1301.2822');
    await page.click(`${LAYERS} ${action('customize')}`);
    await page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
    // Each provider by the name Google's ATP list gives it, with its privacy policy.
    const item = page.locator(`${LAYERS} [data-tcf-ac-provider-item="1301"]`);
    expect(await item.locator('.cs-tcf-name').textContent()).toBe('Yieldlab, "Test" AG');
    expect(await item.locator('a').getAttribute('href')).toBe('https://yieldlab.example/privacy');
    for (const id of [89, 1301, 2822]) {
      const box = page.locator(`${LAYERS} input[data-tcf-ac-provider="${id}"]`);
      expect(await box.isChecked()).toBe(false);
    }
    await page.locator(`${LAYERS} input[data-tcf-ac-provider="1301"]`).check();
    await page.click(`${LAYERS} ${action('save')}`);
    const done = await heard(page, 'useractioncomplete');
    const data = (await tcfapi(page, 'getTCData')).value;
    expect(data.tcString).toBe(done.tcString);
    // Google's format: 2~<consented>~dv.<disclosed, not consented>.
    expect(data.addtlConsent).toBe('2~1301~dv.89.2822');
    const [event] = await f.recorded(context, site, 1);
    expect(posts[0].addtlConsent).toBe('2~1301~dv.89.2822');
    expect(event.tcf.addtlConsent).toBe('2~1301~dv.89.2822');

    // A returning visitor's TCData carries the kept AC string, and "Accept all" consents every provider.
    const again = await context.newPage();
    await again.goto(page.url());
    await again.waitForFunction("window.tcfEvents.some((e) => e.status === 'tcloaded')");
    expect((await tcfapi(again, 'getTCData')).value.addtlConsent).toBe('2~1301~dv.89.2822');
    await again.evaluate('window.ConsentService.acceptAll()');
    await again.waitForFunction("window.tcfEvents.some((e) => e.status === 'useractioncomplete')");
    const acOf = async () => (await tcfapi(again, 'getTCData')).value.addtlConsent;
    await expect.poll(acOf, { timeout: 10_000 }).toBe('2~89.1301.2822~dv.');
    // Both decisions may fall in one second (recordedAt is whole seconds), so the page's is found by
    // its source, not by its place in the list.
    const events = await f.recorded(context, site, 2);
    const byPage = events.find((e) => e.source === 'api');
    expect(byPage?.tcf.addtlConsent).toBe('2~89.1301.2822~dv.');
    await context.close();
  });
});
