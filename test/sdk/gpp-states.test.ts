import { GppModel } from '@iabgpp/cmpapi';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { supportedUsApis, US_STATE_SECTIONS } from '../../src/shared/us-gpp-sections.ts';
import { skipWith } from '../helpers/skip.ts';
import { sdkFixture } from './fixture.ts';
import { browserSkipReason, type Site } from './harness.ts';
import { regionHelpers, US_OPT_OUT } from './regions-helpers.ts';

/**
 * In Chromium: under a channel's `gppSections: "state"`, a visitor of each state with
 * its own GPP section gets that section (table-driven over every section @iabgpp/cmpapi encodes), a
 * visitor of a state without one gets usnat, and under "usnat" the strings are today's, byte for
 * byte. Every string is read back with the IAB's own decoder.
 */
const CMP_ID = 300;
const STATES = Object.entries(US_STATE_SECTIONS);
/**
 * What the SDK made before state sections for this site's US-CA visitor (usnat.ts of that commit, encoded
 * by the library): nothing opted out; and with GPC, recorded as the opt-out.
 */
const USNAT_BEFORE = 'DBABLA~CVQqAAAAAACA.QA';
const USNAT_GPC_BEFORE = 'DBABLA~CVQVAAAAAACA.YA';

const ping = (page: Page): Promise<Record<string, any>> =>
  page.evaluate("new Promise((resolve) => __gpp('ping', resolve))");
const loaded =
  "(() => { let ok = false; window.__gpp && __gpp('ping', (p) => { ok = p.cmpStatus === 'loaded' && p.signalStatus === 'ready'; }); return ok; })()";

describe.skipIf(skipWith(browserSkipReason))('US state GPP sections in Chromium', () => {
  const f = sdkFixture();
  const { siteWithRules, visitFrom, channel } = regionHelpers(f);

  async function gppSite(gppSections?: 'usnat' | 'state'): Promise<Site> {
    const site = await siteWithRules(US_OPT_OUT);
    const body = { gppCmpId: CMP_ID, ...(gppSections && { gppSections }) };
    const res = await f.t.http.patch(channel(site), { key: f.key, body });
    expect(res.status, res.text).toBe(200);
    return { ...site, configVersion: res.body.data.configVersion };
  }

  describe('"state"', () => {
    let site: Site;

    it.each(STATES)(
      '%s with GPC: its own section %o, opted out, GPC where the section carries it; the evidence keeps the string',
      async (code, section) => {
        site ??= await gppSite('state');
        const { context, page } = await visitFrom(site, code, { gpc: true });
        await page.waitForFunction(loaded);
        const [event] = await f.recorded(context, site, 1);
        const data = await ping(page);
        expect(data).toMatchObject({
          cmpId: CMP_ID,
          supportedAPIs: supportedUsApis('state'),
          applicableSections: [section.id],
          sectionList: [section.id],
        });
        const model = new GppModel(data.gppString);
        expect(model.getHeader().SectionIds).toEqual([section.id]);
        expect(model.hasSection('usnat')).toBe(false);
        const fields = model.getSection(section.name) as Record<string, unknown>;
        for (const name of ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut']) {
          if (name in fields) expect(fields[name], name).toBe(1);
        }
        expect(fields.SaleOptOut).toBe(1);
        expect(fields.MspaCoveredTransaction).toBe(2);
        if ('Gpc' in fields) expect(fields.Gpc).toBe(true);
        expect(event).toMatchObject({ source: 'gpc', region: code, gppString: data.gppString });
        await context.close();
      },
    );

    it('US-CA without GPC: usca, nothing opted out; US-NY (no section of its own) and the US as a whole: usnat', async () => {
      site ??= await gppSite('state');
      const ca = await visitFrom(site, 'US-CA');
      await ca.page.waitForFunction(loaded);
      const usca = new GppModel((await ping(ca.page)).gppString).getSection('usca');
      expect(usca).toMatchObject({ SaleOptOutNotice: 1, SaleOptOut: 2, SharingOptOut: 2, Gpc: false });
      await ca.context.close();
      for (const region of ['US-NY', 'US']) {
        const { context, page } = await visitFrom(site, region);
        await page.waitForFunction(loaded);
        const data = await ping(page);
        expect(data).toMatchObject({ applicableSections: [7], sectionList: [7] });
        expect(new GppModel(data.gppString).getSection('usnat')).toMatchObject({ SaleOptOut: 2, Gpc: false });
        await context.close();
      }
    });
  });

  it('"usnat" (the default): a US-CA visitor gets usnat, its strings byte for byte what they were', async () => {
    const site = await gppSite();
    const plain = await visitFrom(site, 'US-CA');
    await plain.page.waitForFunction(loaded);
    const data = await ping(plain.page);
    expect(data).toMatchObject({ supportedAPIs: ['7:usnat'], applicableSections: [7] });
    expect(data.gppString).toBe(USNAT_BEFORE);
    await plain.context.close();
    const gpc = await visitFrom(site, 'US-CA', { gpc: true });
    await gpc.page.waitForFunction(loaded);
    await f.recorded(gpc.context, site, 1);
    expect((await ping(gpc.page)).gppString).toBe(USNAT_GPC_BEFORE);
    await gpc.context.close();
  });
});
