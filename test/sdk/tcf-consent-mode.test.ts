import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAtpList } from '../helpers/atp.ts';
import { buildVendorList, TEST_VENDORS } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { action } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { decodeTc, heard, LAYERS, TCF_SETTINGS, tcfapi, tcfFixture, VENDOR_IDS } from './tcf-helpers.ts';

/**
 * Google Consent Mode on a TCF channel follows the TC string as Google's TCF integration reads it
 * (docs/guides/tcf.md, "Google Consent Mode"): the advertiser consent mode flag in TCData, and
 * `ad_storage`, `ad_user_data`, `ad_personalization` from the string's purposes and Google's own
 * vendor consent (755), whatever the channel's own purposes declare. Every string is read with
 * IAB's decoder.
 */
const GOOGLE = {
  id: 755,
  name: 'Google Advertising Products',
  purposes: [1, 3, 4],
  legIntPurposes: [2, 7, 9, 10],
  flexiblePurposes: [2, 7, 9, 10],
  specialPurposes: [1, 2],
  features: [1, 2],
};

/** The advertising signals of the page's last Consent Mode update (gtag('consent', 'update', …)). */
async function lastUpdate(page: Page) {
  const calls = (await page.evaluate('window.gtagCalls')) as unknown[][];
  const updates = calls.filter((c) => c[0] === 'consent' && c[1] === 'update');
  expect(updates.length, 'a Consent Mode update').toBeGreaterThan(0);
  const { ad_storage, ad_user_data, ad_personalization } = updates[updates.length - 1][2] as Record<
    string,
    string
  >;
  return { ad_storage, ad_user_data, ad_personalization };
}

describe.skipIf(skipWith(browserSkipReason))('Consent Mode from the TC string', () => {
  const f = tcfFixture();

  beforeAll(async () => {
    f.gvl.publish(buildVendorList({ version: 101, vendors: [...TEST_VENDORS, GOOGLE] }));
    await refreshVendorList(f.t);
    await loadAtpList(f.t);
  });

  it('Google among the vendors, accept all: the three advertising signals granted, and TCData says to infer them', async () => {
    const site = await f.tcfSite({ ...TCF_SETTINGS, vendorIds: [...VENDOR_IDS, 755] });
    const { page, context } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    expect(decodeTc(tcString).vendorConsents).toContain(755);
    expect(await lastUpdate(page)).toEqual({
      ad_storage: 'granted',
      ad_user_data: 'granted',
      ad_personalization: 'granted',
    });
    expect((await tcfapi(page, 'getTCData')).value.enableAdvertiserConsentMode).toBe(true);
    await context.close();
  });

  it('Google not among the vendors: accept all leaves them denied, though the channel’s marketing purpose lists them', async () => {
    const site = await f.tcfSite();
    const { page, context } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    expect(decodeTc(tcString).vendorConsents).not.toContain(755);
    // The channel's own purposes are granted (marketing declares ad_storage, ad_user_data and
    // ad_personalization); Google has no consent in the string, so Consent Mode says denied.
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toMatchObject({
      marketing: 'granted',
    });
    expect(await lastUpdate(page)).toEqual({
      ad_storage: 'denied',
      ad_user_data: 'denied',
      ad_personalization: 'denied',
    });
    await context.close();
  });

  it('Google among the vendors, reject all: denied; a returning visitor’s kept string gives the same', async () => {
    const site = await f.tcfSite({ ...TCF_SETTINGS, vendorIds: [...VENDOR_IDS, 755] });
    const { page, context } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    await page.click(`${LAYERS} ${action('accept-all')}`);
    await heard(page, 'useractioncomplete');
    // The next page: the kept string is published (tcloaded), and Consent Mode follows it.
    const again = await f.visit(site, 'FR', { context });
    await heard(again.page, 'tcloaded');
    expect(await lastUpdate(again.page)).toEqual({
      ad_storage: 'granted',
      ad_user_data: 'granted',
      ad_personalization: 'granted',
    });
    await again.page.evaluate('window.ConsentService.rejectAll()');
    await heard(again.page, 'useractioncomplete');
    expect(await lastUpdate(again.page)).toEqual({
      ad_storage: 'denied',
      ad_user_data: 'denied',
      ad_personalization: 'denied',
    });
    await context.close();
  });
});
