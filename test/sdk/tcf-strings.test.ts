import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { action } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import {
  CMP_ID,
  CMP_VERSION,
  decodeTc,
  heard,
  LAYERS,
  type TcfVisit,
  tcfapi,
  tcfFixture,
  VENDOR_IDS,
} from './tcf-helpers.ts';

/**
 * docs/guides/tcf.md: the TC strings the SDK's tcf.js builds from the visitor's
 * choice in the layers, each read back in Node with IAB Tech Lab's own decoder (@iabtechlabtcf/core),
 * never ours, and compared with what the service recorded as evidence. The vendor list is the tests'
 * (version 100): vendors 1, 2, 8, 21 and 32 ask consent for purposes 1–7 between them, claim
 * legitimate interest for 2 and 7–11 (purposes 3–6 never take it), and 2, 8 and 21 use special
 * features 1 and 2.
 */
const ALL_LI_PURPOSES = [2, 7, 8, 9, 10, 11];

describe.skipIf(skipWith(browserSkipReason))('TC strings', () => {
  const f = tcfFixture();

  /** Does `act` in the layers; returns the string the CMP API announced and the evidence event. */
  async function choose(
    visit: TcfVisit,
    site: Awaited<ReturnType<typeof f.tcfSite>>,
    act: (page: Page) => Promise<void>,
  ) {
    const { page, context, posts } = visit;
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    await act(page);
    const { tcString } = await heard(page, 'useractioncomplete');
    const [event] = await f.recorded(context, site, 1);
    expect(posts).toHaveLength(1);
    expect(posts[0].tcString).toBe(tcString);
    // What the service recorded is the browser's string, unchanged.
    expect(event.tcString).toBe(tcString);
    expect((await tcfapi(page, 'getTCData')).value.tcString).toBe(tcString);
    return { tcString, event, decoded: decodeTc(tcString) };
  }

  /** What every string of this channel carries, whatever the choice. */
  function expectChannelFields(decoded: ReturnType<typeof decodeTc>, language: string) {
    const { model } = decoded;
    expect(model.cmpId).toBe(CMP_ID);
    expect(model.cmpVersion).toBe(CMP_VERSION);
    expect(model.isServiceSpecific).toBe(true);
    expect(model.vendorListVersion).toBe(100);
    expect(model.policyVersion).toBe(5);
    expect(model.consentLanguage).toBe(language);
    expect(model.publisherCountryCode).toBe('DE');
    expect(model.purposeOneTreatment).toBe(false);
    // TCF 2.3: DisclosedVendors lists exactly the vendors the layers showed, the channel's five.
    expect(decoded.vendorsDisclosed).toEqual(VENDOR_IDS);
  }

  it('"Accept all": every consent, every legitimate interest, both special features; the channel’s purposes granted', async () => {
    const site = await f.tcfSite();
    const visit = await f.visit(site, 'FR');
    const { decoded, event } = await choose(visit, site, (page) =>
      page.click(`${LAYERS} ${action('accept-all')}`),
    );
    expectChannelFields(decoded, 'EN');
    expect(decoded.purposeConsents).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(decoded.purposeLegitimateInterests).toEqual(ALL_LI_PURPOSES);
    expect(decoded.vendorConsents).toEqual(VENDOR_IDS);
    expect(decoded.vendorLegitimateInterests).toEqual(VENDOR_IDS);
    expect(decoded.specialFeatureOptins).toEqual([1, 2]);
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });
    await visit.context.close();
  });

  it('"Reject all": no consent, every legitimate interest objected to, no special feature; the vendors still disclosed', async () => {
    const site = await f.tcfSite();
    const visit = await f.visit(site, 'FR');
    const { decoded, event } = await choose(visit, site, (page) =>
      page.click(`${LAYERS} ${action('reject-all')}`),
    );
    expectChannelFields(decoded, 'EN');
    expect(decoded.purposeConsents).toEqual([]);
    expect(decoded.purposeLegitimateInterests).toEqual([]);
    expect(decoded.vendorConsents).toEqual([]);
    expect(decoded.vendorLegitimateInterests).toEqual([]);
    expect(decoded.specialFeatureOptins).toEqual([]);
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'denied', marketing: 'denied' });

    // reset() forgets the decision, and the string with it: the layers show again with none.
    const shown = "window.tcfEvents.filter((e) => e.status === 'cmpuishown').length";
    const before: number = await visit.page.evaluate(shown);
    await visit.page.evaluate('window.ConsentService.reset()');
    await visit.page.waitForFunction(`${shown} > ${before}`);
    // The visitor's string is forgotten: the layers' transparency string stands.
    const reshown = await heard(visit.page, 'cmpuishown');
    expect(reshown.ok).toBe(true);
    expect(decodeTc(reshown.tcString).vendorConsents).toEqual([]);
    expect(decodeTc(reshown.tcString).vendorsDisclosed).toEqual(VENDOR_IDS);
    expect((await tcfapi(visit.page, 'getTCData')).value).toMatchObject({
      tcString: reshown.tcString,
      eventStatus: 'cmpuishown',
    });
    await visit.page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    await visit.context.close();
  });

  it('a custom choice in "Manage options" (German): two consents, objections to a purpose’s and a vendor’s legitimate interest, a special feature', async () => {
    const site = await f.tcfSite();
    // The layers are drawn in German only with IAB's German texts (never mixed):
    // the mirror fetches them once a channel uses the language.
    await refreshVendorList(f.t);
    const visit = await f.visit(site, 'FR', { locale: 'de-DE' });
    const { decoded, event } = await choose(visit, site, async (page) => {
      await page.click(`${LAYERS} ${action('customize')}`);
      await page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
      const box = (attr: string, id: number | string) => page.locator(`${LAYERS} input[${attr}="${id}"]`);
      // Legitimate interest starts unobjected; consents and special features start off.
      expect(await box('data-tcf-purpose-li', 9).isChecked()).toBe(true);
      expect(await box('data-tcf-purpose-consent', 1).isChecked()).toBe(false);
      await box('data-tcf-purpose-consent', 1).check();
      await box('data-tcf-purpose-consent', 7).check();
      await box('data-tcf-purpose-li', 9).uncheck();
      await box('data-tcf-vendor-consent', 2).check();
      await box('data-tcf-vendor-consent', 21).check();
      await box('data-tcf-vendor-li', 8).uncheck();
      await box('data-tcf-special-feature', 1).check();
      await box('data-consent-purpose', 'analytics').check();
      await page.click(`${LAYERS} ${action('save')}`);
    });
    expectChannelFields(decoded, 'DE');
    expect(decoded.purposeConsents).toEqual([1, 7]);
    expect(decoded.purposeLegitimateInterests).toEqual([2, 7, 8, 10, 11]);
    expect(decoded.vendorConsents).toEqual([2, 21]);
    expect(decoded.vendorLegitimateInterests).toEqual([1, 2, 21, 32]);
    expect(decoded.specialFeatureOptins).toEqual([1]);
    expect(event).toMatchObject({ source: 'banner', language: 'de' });
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'denied' });

    // Reopened, "Manage options" shows the choice the string holds.
    await visit.page.evaluate('window.ConsentService.showPreferences()');
    await visit.page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
    await heard(visit.page, 'cmpuishown');
    const box = (attr: string, id: number) => visit.page.locator(`${LAYERS} input[${attr}="${id}"]`);
    expect(await box('data-tcf-purpose-consent', 7).isChecked()).toBe(true);
    expect(await box('data-tcf-purpose-consent', 2).isChecked()).toBe(false);
    expect(await box('data-tcf-vendor-li', 8).isChecked()).toBe(false);
    expect(await box('data-tcf-special-feature', 1).isChecked()).toBe(true);
    await visit.context.close();
  });
});
