import { GppModel } from '@iabgpp/cmpapi';
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGpp, type TcfGppHandle } from '../../../sdk/src/gpp/cmp.ts';
import { optedOut, usnatFields } from '../../../sdk/src/gpp/usnat.ts';
import { gppApplies } from '../../../sdk/src/gpp-applies.ts';
import type { Decisions, SiteConfig } from '../../../sdk/src/types.ts';
import { gppStub } from '../../../src/modules/gpp/gpp-stub.ts';
import { buildVendorList } from '../../helpers/gvl.ts';
import { purpose } from '../../helpers/sdk-purposes.ts';

/**
 * The pure parts of the GPP CMP API (docs/regions.md): the usnat fields the SDK reports, the
 * string CmpApi encodes from them (decoded again with the IAB's own decoder), the stub's hand-over
 * to CmpApi, and which visitors get it. IAB test vectors check that decoder against the spec.
 */

const purposes = [
  purpose('necessary', { required: true }),
  purpose('analytics'),
  purpose('marketing', { gpcOptOut: true }),
  purpose('ads', { gpcOptOut: true }),
];
const GRANTED: Decisions = {
  necessary: 'granted',
  analytics: 'granted',
  marketing: 'granted',
  ads: 'granted',
};

/** The core usnat values the SDK always reports (see usnat.ts for why). */
const NOT_ASKED = {
  Version: 2,
  SharingNotice: 1,
  SaleOptOutNotice: 1,
  SharingOptOutNotice: 1,
  TargetedAdvertisingOptOutNotice: 1,
  SensitiveDataProcessingOptOutNotice: 0,
  SensitiveDataLimitUseNotice: 0,
  SensitiveDataProcessing: new Array(16).fill(0),
  KnownChildSensitiveDataConsents: [0, 0, 0],
  PersonalDataConsents: 0,
  MspaCoveredTransaction: 2,
  MspaOptOutOptionMode: 0,
  MspaServiceProviderMode: 0,
};
const optOuts = (value: number) => ({
  SaleOptOut: value,
  SharingOptOut: value,
  TargetedAdvertisingOptOut: value,
});

/** A GPP string decoded by @iabgpp/cmpapi: its header and its usnat section's fields. */
function decoded(gppString: string) {
  const model = new GppModel(gppString);
  return { sectionIds: model.getHeader().SectionIds, usnat: model.getSection('usnat') };
}

describe('usnat fields', () => {
  it('a visitor who denied no covered purpose did not opt out; any denied one is an opt-out', () => {
    expect(optedOut(null, purposes)).toBe(false);
    expect(optedOut(GRANTED, purposes)).toBe(false);
    // Denying a purpose without gpcOptOut (analytics) is no sale, sharing or targeting opt-out.
    expect(optedOut({ ...GRANTED, analytics: 'denied' }, purposes)).toBe(false);
    expect(optedOut({ ...GRANTED, ads: 'denied' }, purposes)).toBe(true);
    expect(optedOut({ ...GRANTED, marketing: 'denied', ads: 'denied' }, purposes)).toBe(true);
    // A required purpose cannot be opted out of, gpcOptOut or not.
    const required = [purpose('billing', { required: true, gpcOptOut: true })];
    expect(optedOut({ billing: 'denied' }, required)).toBe(false);
  });

  it('notices given, opt-outs 1 or 2, GPC in its subsection; not applicable without covered purposes', () => {
    expect(usnatFields(GRANTED, purposes, false)).toMatchObject({ ...optOuts(2), Gpc: false });
    expect(usnatFields({ ...GRANTED, ads: 'denied' }, purposes, true)).toMatchObject({
      ...optOuts(1),
      SaleOptOutNotice: 1,
      GpcSegmentIncluded: true,
      Gpc: true,
    });
    expect(usnatFields(null, [purpose('analytics')], false)).toMatchObject({
      SharingNotice: 1,
      SaleOptOutNotice: 0,
      SharingOptOutNotice: 0,
      TargetedAdvertisingOptOutNotice: 0,
      ...optOuts(0),
    });
  });
});

describe('the GPP string CmpApi makes (decoded by @iabgpp/cmpapi)', () => {
  afterEach(() => vi.unstubAllGlobals());

  /**
   * This process's global object made the page's window (CmpApi reads and replaces `window.__gpp`;
   * frames.ts reads `globalThis`, which in a browser is the same object), with no frames or
   * messages: `locator` says whether the stub's locator frame is "there".
   */
  function nodeWindow(locator: boolean) {
    const listeners: string[] = [];
    const body = { appendChild: vi.fn() };
    vi.stubGlobal('__gpp', undefined);
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('frames', locator ? { __gppLocator: {} } : {});
    vi.stubGlobal('addEventListener', (type: string) => listeners.push(type));
    vi.stubGlobal('document', { body, createElement: () => ({ style: {} }) });
    return { win: globalThis as unknown as { __gpp: (...args: any[]) => any }, listeners, body };
  }

  /** The snippet's stub (the real gppStub source) run on that window, as the page would. */
  function pageWithStub() {
    const { win } = nodeWindow(true);
    new Function('window', 'document', gppStub(300))(globalThis, { body: null });
    return win;
  }

  it('before any decision: section 7 only, nothing opted out, no GPC; then an opt-out, then GPC', () => {
    pageWithStub();
    const gpp = startGpp(300);
    const first = gpp.update(null, purposes, false);
    expect(decoded(first)).toEqual({
      sectionIds: [7],
      usnat: { ...NOT_ASKED, ...optOuts(2), GpcSegmentType: 1, Gpc: false },
    });
    // The header: type 3 (always), GPP version 1.
    expect(new GppModel(first).getHeader()).toEqual({ Id: 3, Version: 1, SectionIds: [7] });

    const out = gpp.update({ ...GRANTED, marketing: 'denied' }, purposes, false);
    expect(decoded(out).usnat).toEqual({ ...NOT_ASKED, ...optOuts(1), GpcSegmentType: 1, Gpc: false });
    const signal = gpp.update({ ...GRANTED, marketing: 'denied', ads: 'denied' }, purposes, true);
    expect(decoded(signal).usnat).toEqual({ ...NOT_ASKED, ...optOuts(1), GpcSegmentType: 1, Gpc: true });
    // The service's own check (src/modules/gpp/gpp.service.ts) accepts what the SDK makes.
    expect(() => new GppModel(signal).toObject()).not.toThrow();
  });

  it('takes over from the stub: answers its queue, tells its listeners, and follows the spec order of events', () => {
    const win = pageWithStub();
    let stubPing: any;
    win.__gpp('ping', (data: unknown) => {
      stubPing = data;
    });
    expect(stubPing).toMatchObject({ cmpStatus: 'stub', signalStatus: 'not ready', cmpId: 300 });
    const events: Array<[string, unknown]> = [];
    win.__gpp('addEventListener', (event: any) => events.push([event.eventName, event.data]));
    // A command the stub cannot answer is queued (here one GPP 1.1 no longer has).
    const queued = vi.fn();
    win.__gpp('getGPPData', queued);
    expect(win.__gpp('queue')).toHaveLength(1);

    const gpp = startGpp(300);
    expect(queued).toHaveBeenCalledWith(null, false);
    const before = events.length;
    gpp.update(null, purposes, false);
    expect(events.slice(before)).toEqual([
      ['sectionChange', 'usnat'],
      ['signalStatus', 'ready'],
    ]);
    // The same state again (recorded, then applied) fires nothing.
    gpp.update(null, purposes, false);
    expect(events.slice(before)).toHaveLength(2);
    gpp.update({ ...GRANTED, ads: 'denied' }, purposes, false);
    expect(events.slice(before + 2)).toEqual([
      ['signalStatus', 'not ready'],
      ['sectionChange', 'usnat'],
      ['signalStatus', 'ready'],
    ]);

    let ping: any;
    win.__gpp('ping', (data: unknown) => {
      ping = data;
    });
    expect(ping).toMatchObject({
      gppVersion: '1.1',
      cmpStatus: 'loaded',
      signalStatus: 'ready',
      cmpId: 300,
      supportedAPIs: ['7:usnat'],
      applicableSections: [7],
      sectionList: [7],
    });
    expect(decoded(ping.gppString).usnat).toMatchObject(optOuts(1));
  });

  it('without the stub (a snippet from before the gppCmpId), CmpApi still starts, quietly', () => {
    const { listeners, body } = nodeWindow(false);
    const log = vi.spyOn(console, 'log');
    const gpp = startGpp(300);
    expect(log).not.toHaveBeenCalled();
    expect(decoded(gpp.update(null, purposes, false)).sectionIds).toEqual([7]);
    // The locator frame and the message handler the stub would have added.
    expect(body.appendChild).toHaveBeenCalledWith(expect.objectContaining({ name: '__gppLocator' }));
    expect(listeners).toContain('message');
  });

  it('EU TCF section (TCF channel, opt-in region): not ready until the TC string, then exactly that string', () => {
    const { win } = nodeWindow(true);
    new Function('window', 'document', gppStub(300, { tcf: true }))(globalThis, { body: null });
    let stubPing: any;
    win.__gpp('ping', (data: unknown) => {
      stubPing = data;
    });
    expect(stubPing.supportedAPIs).toEqual(['2:tcfeuv2', '7:usnat']);
    const events: Array<[string, unknown]> = [];
    win.__gpp('addEventListener', (event: any) => events.push([event.eventName, event.data]));

    const gpp = startGpp(300, 'tcfeuv2') as TcfGppHandle;
    // The SDK's usnat call says nothing on such a page, and no string exists before the choice.
    expect(gpp.update(null, purposes, false)).toBe('');
    let ping: any;
    win.__gpp('ping', (data: unknown) => {
      ping = data;
    });
    expect(ping).toMatchObject({
      cmpStatus: 'loaded',
      supportedAPIs: ['2:tcfeuv2'],
      applicableSections: [2],
    });
    expect(ping.signalStatus).not.toBe('ready');

    // A TC string as tcf.js builds it, with @iabtechlabtcf/core and a vendor list of the tests'.
    const model = new TCModel(new GVL(buildVendorList() as never));
    model.cmpId = 300;
    model.cmpVersion = 1;
    model.isServiceSpecific = true;
    model.publisherCountryCode = 'DE';
    model.purposeConsents.set([1, 2, 7]);
    model.vendorConsents.set([2, 21]);
    model.specialFeatureOptins.set(1);
    model.vendorsDisclosed.set([1, 2, 8, 21, 32]);
    const tcString = TCString.encode(model);
    const before = events.length;
    const gppString = gpp.updateTc(tcString);
    expect(events.slice(before)).toEqual([
      ['sectionChange', 'tcfeuv2'],
      ['signalStatus', 'ready'],
    ]);
    // Decoded by the two IAB libraries: the GPP section holds the same consents as the TC string.
    const section = new GppModel(gppString);
    expect(section.getHeader().SectionIds).toEqual([2]);
    const tc = TCString.decode(tcString);
    const ids = (flags: boolean[]) => flags.flatMap((on, i) => (on ? [i + 1] : []));
    expect(ids(section.getFieldValue('tcfeuv2', 'PurposeConsents'))).toEqual([
      ...tc.purposeConsents.values(),
    ]);
    expect(section.getFieldValue('tcfeuv2', 'VendorConsents')).toEqual([...tc.vendorConsents.values()]);
    expect(ids(section.getFieldValue('tcfeuv2', 'SpecialFeatureOptins'))).toEqual([1]);
    expect(section.getFieldValue('tcfeuv2', 'VendorsDisclosed')).toEqual([1, 2, 8, 21, 32]);
    expect(section.getFieldValue('tcfeuv2', 'CmpId')).toBe(300);
    // The same string again changes nothing and fires nothing.
    gpp.updateTc(tcString);
    expect(events.slice(before)).toHaveLength(2);
  });
});

describe('IAB test vectors, decoded by the same library', () => {
  /*
   * IAB Tech Lab, Global Privacy Platform, "Core/Consent String Specification.md", section "GPP
   * String Examples", examples 1 and 2 (github.com/InteractiveAdvertisingBureau/Global-Privacy-Platform),
   * with the header values of its "Header Examples" 1 and 2 (Type 3, Version 1, the section ids),
   * and the US Privacy string `1YNN` (IAB CCPA Compliance Framework: version 1, notice given "Y",
   * opted out of sale "N", LSPA covered "N").
   */
  it('spec example 1: DBABM~… is a header of version 1 with one section, EU TCF v2 (id 2)', () => {
    const model = new GppModel('DBABM~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA');
    expect(model.getHeader()).toMatchObject({ Version: 1, SectionIds: [2] });
    expect(model.hasSection('tcfeuv2')).toBe(true);
    // A TC string's first six bits are its version: "C" is 2.
    expect(model.getFieldValue('tcfeuv2', 'Version')).toBe(2);
  });

  it('spec example 2: DBACNY~…~1YNN holds EU TCF v2 (2) and US Privacy (6), the latter 1, Y, N, N', () => {
    const model = new GppModel('DBACNY~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN');
    expect(model.getHeader()).toMatchObject({ Version: 1, SectionIds: [2, 6] });
    expect(model.getSection('uspv1')).toEqual({ Version: 1, Notice: 'Y', OptOutSale: 'N', LspaCovered: 'N' });
  });

  /*
   * IAB Tech Lab's reference implementation, github.com/IABTechLab/iabgpp-es,
   * modules/cmpapi/test/encoder/section/UsNat.test.ts, "should encode to CVVVkkkkkpFY.YA": the field
   * values it sets, which its encoder turns into that section string.
   */
  it('iabgpp-es usnat vector CVVVkkkkkpFY.YA has the field values it was encoded from', () => {
    const model = new GppModel();
    model.decodeSection('usnat', 'CVVVkkkkkpFY.YA');
    expect(model.getSection('usnat')).toEqual({
      Version: 2,
      SharingNotice: 1,
      SaleOptOutNotice: 1,
      SharingOptOutNotice: 1,
      TargetedAdvertisingOptOutNotice: 1,
      SensitiveDataProcessingOptOutNotice: 1,
      SensitiveDataLimitUseNotice: 1,
      SaleOptOut: 1,
      SharingOptOut: 1,
      TargetedAdvertisingOptOut: 1,
      SensitiveDataProcessing: [2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2],
      KnownChildSensitiveDataConsents: [2, 1, 0],
      PersonalDataConsents: 1,
      MspaCoveredTransaction: 1,
      MspaOptOutOptionMode: 1,
      MspaServiceProviderMode: 2,
      GpcSegmentType: 1,
      Gpc: true,
    });
  });
});

describe('who gets the GPP CMP API', () => {
  const config = (extra: Partial<SiteConfig>) =>
    ({
      gppCmpId: 300,
      regime: 'opt-out',
      region: { code: 'US-CA', source: 'declared' },
      ...extra,
    }) as SiteConfig;

  it('US (country or subdivision) opt-out visitors of channels with a gppCmpId, no one else', () => {
    expect(gppApplies(config({}))).toBe(true);
    expect(gppApplies(config({ region: { code: 'US', source: 'header' } }))).toBe(true);
    expect(gppApplies(config({ gppCmpId: null }))).toBe(false);
    expect(gppApplies(config({ gppCmpId: undefined }))).toBe(false);
    expect(gppApplies(config({ regime: 'opt-in' }))).toBe(false);
    expect(gppApplies(config({ regime: 'notice-only' }))).toBe(false);
    expect(gppApplies(config({ regime: undefined }))).toBe(false);
    for (const code of ['FR', 'CA-QC', 'USA', 'UST', null]) {
      expect(gppApplies(config({ region: { code, source: 'declared' } as SiteConfig['region'] }))).toBe(
        false,
      );
    }
    expect(gppApplies(config({ region: undefined }))).toBe(false);
  });
});

// store-independent: the SDK's GPP logic in Node, no service
