import { GppModel } from '@iabgpp/cmpapi';
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gppSectionOf, tcfEuGppString, usGppString } from '../../../packages/core/src/gpp.ts';
import { gppKeys } from '../../../packages/core/src/iab-keys.ts';
import { startGpp, type TcfGppHandle } from '../../../sdk/src/gpp/cmp.ts';
import type { Decisions, SiteConfig } from '../../../sdk/src/types.ts';
import { buildVendorList } from '../../helpers/gvl.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';
import { expectSpecTypes } from './in-app-spec.ts';

/**
 * The IABGPP_ keys of @consent-service/core, and the GPP strings they are made of: the same string
 * the web's gpp.js makes with CmpApi for the same decisions (so an app and a page never disagree),
 * each key read back with @iabgpp/cmpapi's decoder and typed as the GPP in-app table says.
 */

const purposes = [
  purpose('necessary', { required: true }),
  purpose('analytics'),
  purpose('ads', { gpcOptOut: true }),
];
const GRANTED: Decisions = { necessary: 'granted', analytics: 'granted', ads: 'granted' };
const OPTED_OUT: Decisions = { ...GRANTED, ads: 'denied' };

function config(extra: Partial<SiteConfig>): SiteConfig {
  return {
    purposes,
    gppCmpId: 300,
    regime: 'opt-out',
    region: { code: 'US-CA', source: 'declared' },
    ...extra,
  } as SiteConfig;
}

/** CmpApi on this process's global object as the page's window (as test/sdk/gpp-logic.test.ts does). */
function nodeWindow() {
  vi.stubGlobal('__gpp', undefined);
  vi.stubGlobal('window', globalThis);
  vi.stubGlobal('frames', { __gppLocator: {} });
  vi.stubGlobal('addEventListener', () => {});
  vi.stubGlobal('document', { body: null, createElement: () => ({ style: {} }) });
}

afterEach(() => vi.unstubAllGlobals());

describe('the GPP string of the core', () => {
  it('is the string gpp.js makes on the web for the same decisions: usnat and a state section', () => {
    for (const [gppSections, region] of [
      ['usnat', 'US-CA'],
      ['state', 'US-CA'],
      ['state', 'US-VA'],
    ] as const) {
      const channel = config({ gppSections, region: { code: region, source: 'declared' } });
      const section = gppSectionOf(channel);
      expect(section).not.toBeNull();
      nodeWindow();
      const web = startGpp(300, gppSections, region);
      for (const decisions of [null, GRANTED, OPTED_OUT]) {
        const app = usGppString(section!, decisions, channel);
        expect(app, `${gppSections} ${region} ${JSON.stringify(decisions)}`).toBe(
          web.update(decisions, purposes, false),
        );
      }
      vi.unstubAllGlobals();
    }
  });

  it('carries a TC string as its EU TCF section exactly as gpp.js does for tcf.js', () => {
    const model = new TCModel(new GVL(buildVendorList() as never));
    model.cmpId = 300;
    model.cmpVersion = 1;
    model.publisherCountryCode = 'FR';
    model.purposeConsents.set([1, 2]);
    model.vendorConsents.set([2, 21]);
    const tcString = TCString.encode(model);
    nodeWindow();
    const web = startGpp(300, 'tcfeuv2') as TcfGppHandle;
    const app = tcfEuGppString(tcString);
    expect(app).toBe(web.updateTc(tcString));
    const section = new GppModel(app).getSection('tcfeuv2') as { VendorConsents: number[] };
    expect(section.VendorConsents).toEqual([2, 21]);
  });

  it('applies where the web loads gpp.js: US opt-out visitors, and TCF opt-in visitors of a channel with a gppCmpId', () => {
    expect(gppSectionOf(config({}))).toEqual({ id: 7, name: 'usnat' });
    expect(gppSectionOf(config({ gppSections: 'state' }))).toEqual({ id: 8, name: 'usca' });
    expect(gppSectionOf(config({ gppCmpId: null }))).toBeNull();
    expect(gppSectionOf(config({ regime: 'opt-in', region: { code: 'FR', source: 'geo' } }))).toBeNull();
    const tcf = { cmpId: 300 } as SiteConfig['tcf'];
    expect(gppSectionOf(config({ regime: 'opt-in', region: { code: 'FR', source: 'geo' }, tcf }))).toEqual({
      id: 2,
      name: 'tcfeuv2',
    });
  });
});

describe('IABGPP_ keys', () => {
  it('are the header, the string, the sections in force and each section string, all Strings', () => {
    const gppString = usGppString({ id: 7, name: 'usnat' }, OPTED_OUT, config({}));
    const keys = gppKeys(gppString, [7]);
    expectSpecTypes(keys);
    const decoded = new GppModel(keys.IABGPP_HDR_GppString as string);
    expect(keys).toEqual({
      IABGPP_HDR_Version: String(decoded.getHeader().Version),
      IABGPP_HDR_Sections: '7',
      IABGPP_HDR_GppString: gppString,
      IABGPP_GppSID: '7',
      IABGPP_7_String: decoded.encodeSection('usnat'),
    });
    expect(keys.IABGPP_HDR_Version).toBe('1');
    // The section's string alone decodes to the same section as the whole string.
    const alone = new GppModel();
    alone.decodeSection('usnat', keys.IABGPP_7_String as string);
    expect(alone.getSection('usnat')).toEqual(decoded.getSection('usnat'));
    expect((decoded.getSection('usnat') as { SaleOptOut: number }).SaleOptOut).toBe(1);
  });

  it('join several sections with underscores', () => {
    const model = new GppModel();
    model.setFieldValue('usnat', 'SharingNotice', 1);
    model.setFieldValue('usca', 'SaleOptOutNotice', 1);
    const keys = gppKeys(model.encode(), [8]);
    expectSpecTypes(keys);
    expect(keys.IABGPP_HDR_Sections).toBe('7_8');
    expect(keys.IABGPP_GppSID).toBe('8');
    expect(keys.IABGPP_7_String).toBe(model.encodeSection('usnat'));
    expect(keys.IABGPP_8_String).toBe(model.encodeSection('usca'));
  });
});

// store-independent: the core's GPP strings and keys in Node, no service
