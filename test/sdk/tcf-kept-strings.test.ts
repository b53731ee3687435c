import { describe, expect, it } from 'vitest';
import { TCF_RELEASE } from '../../src/modules/tcf/settings/tcf-settings.service.ts';
import { buildVendorList, TEST_VENDORS } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { action, BANNER } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { decodeTc, heard, LAYERS, TCF_SETTINGS, tcfapi, tcfFixture, VENDOR_IDS } from './tcf-helpers.ts';

/**
 * docs/guides/tcf.md: a returning visitor's kept TC string speaks for the
 * vendors the publisher has now, in the vendor list the service has now (a vendor removed from the
 * channel, or deleted by IAB, is neither consented nor disclosed any more, without asking the
 * visitor again); and a channel that does not pin `cmpVersion` reports the service's TCF release.
 */
describe.skipIf(skipWith(browserSkipReason))('kept TC strings and the CMP version', () => {
  const f = tcfFixture();

  it('a channel without its own cmpVersion follows the service’s TCF release: config, ping and string', async () => {
    const { cmpVersion: _pinned, ...settings } = TCF_SETTINGS;
    const site = await f.tcfSite(settings);
    const channel = (await f.t.http.get(`/v1/channels/${site.channelId}`, { key: f.key })).body.data;
    expect(channel.tcf.cmpVersion).toBeNull();
    const config = (await f.t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
    expect(config.tcf.cmpVersion).toBe(TCF_RELEASE);

    const { context, page } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    expect((await tcfapi(page, 'ping')).value.cmpVersion).toBe(TCF_RELEASE);
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    expect(decodeTc(tcString).model.cmpVersion).toBe(TCF_RELEASE);
    await context.close();
  });

  // Last in the file: it publishes a newer vendor list, which every channel of this app adopts.
  it('a vendor removed from the channel, then one IAB deletes: the returning visitor’s tcloaded string holds neither, and nothing is asked again', async () => {
    const site = await f.tcfSite();
    const first = await f.visit(site, 'FR');
    await first.page.locator(LAYERS).waitFor();
    await first.page.click(`${LAYERS} ${action('accept-all')}`);
    const accepted = decodeTc((await heard(first.page, 'useractioncomplete')).tcString);
    expect(accepted.vendorConsents).toEqual(VENDOR_IDS);
    expect(accepted.vendorsDisclosed).toEqual(VENDOR_IDS);
    await f.recorded(first.context, site, 1);

    // The publisher stops working with The Trade Desk (21): not a material change.
    const kept = VENDOR_IDS.filter((id) => id !== 21);
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
      key: f.key,
      body: { tcf: { ...TCF_SETTINGS, vendorIds: kept } },
    });
    expect(res.status, res.text).toBe(200);
    const config = async () =>
      (await f.t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
    expect((await config()).consentRequiredSince).toBe(site.configVersion);

    // The returning visitor's cookie and storage, not the config their browser cached for a minute.
    const returning = async () =>
      f.browser.newContext({ locale: 'en-US', storageState: await first.context.storageState() });
    const second = await f.visit(site, 'FR', { context: await returning() });
    const loaded = await heard(second.page, 'tcloaded');
    expect(await second.page.locator(BANNER).count()).toBe(0);
    const after = decodeTc(loaded.tcString);
    expect(after.vendorConsents).toEqual(kept);
    expect(after.vendorLegitimateInterests).toEqual(
      accepted.vendorLegitimateInterests.filter((id) => id !== 21),
    );
    expect(after.vendorsDisclosed).toEqual(kept);
    // What the visitor chose otherwise stands, made when it was made.
    expect(after.purposeConsents).toEqual(accepted.purposeConsents);
    expect(after.specialFeatureOptins).toEqual(accepted.specialFeatureOptins);
    expect(after.model.created.getTime()).toBe(accepted.model.created.getTime());
    expect(after.model.vendorListVersion).toBe(100);
    const data = await tcfapi(second.page, 'getTCData');
    expect(data.value.tcString).toBe(loaded.tcString);
    expect(data.value.vendor.consents['21'] ?? false).toBe(false);
    expect(data.value.vendor.disclosedVendors['21'] ?? false).toBe(false);

    // IAB deletes Xandr (32) in version 101; the worker moves the channel to it.
    const deleted = TEST_VENDORS.map((v) =>
      v.id === 32 ? { ...v, deletedDate: '2026-01-02T00:00:00Z' } : v,
    );
    f.gvl.publish(buildVendorList({ version: 101, vendors: deleted }));
    await refreshVendorList(f.t);
    await expect.poll(async () => (await config()).tcf.vendorListVersion, { timeout: 10_000 }).toBe(101);

    const third = await f.visit(site, 'FR', { context: await returning() });
    const reloaded = decodeTc((await heard(third.page, 'tcloaded')).tcString);
    expect(await third.page.locator(BANNER).count()).toBe(0);
    const left = kept.filter((id) => id !== 32);
    expect(reloaded.vendorConsents).toEqual(left);
    expect(reloaded.vendorsDisclosed).toEqual(left);
    expect(reloaded.model.vendorListVersion).toBe(101);
    expect((await tcfapi(third.page, 'ping')).value.gvlVersion).toBe(101);
    // Nothing was asked or recorded again.
    await f.recorded(third.context, site, 1);
    for (const visit of [first, second, third]) await visit.context.close();
  });
});
