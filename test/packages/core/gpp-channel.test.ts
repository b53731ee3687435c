import { GppModel } from '@iabgpp/cmpapi';
import { TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsentClientOptions, createConsentClient } from '../../../packages/core/src/index.ts';
import type { Tenant, TestApp } from '../../helpers/app.ts';
import { SITES_TEST_ENV } from '../../helpers/sites.ts';
import { startTcfTestApp } from '../../helpers/tcf.ts';
import { APP_ID, createAppChannel, evidenceOf, memoryStorage } from './app-channel.ts';
import { expectSpecTypes, recordingWriter } from './in-app-spec.ts';

/**
 * The IABGPP_ keys of @consent-service/core against the real service: on a US channel, the GPP
 * string of the device's state (the web's, sent with each decision as the web sends it), read back
 * with @iabgpp/cmpapi and typed as the GPP in-app table says; the keys of a section no longer in
 * force removed; on a TCF channel with a gppCmpId, the EU TCF section carrying the TC string, beside
 * the IABTCF_ keys, and removed with the decision.
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const US_OPT_OUT = [
  { regions: ['US'], regime: 'opt-out' },
  { regions: ['*'], regime: 'opt-in' },
];

/** An app channel with GPP and a purpose of sale, sharing and targeted advertising (gpcOptOut). */
async function usChannel(extra: Record<string, unknown> = {}) {
  const channel = await createAppChannel(t, tenant.testKey, {
    gppCmpId: 300,
    regionRules: US_OPT_OUT,
    ...extra,
  });
  const ads = await t.http.post(`/v1/channels/${channel.id}/purposes`, {
    key: tenant.testKey,
    body: { key: 'ads', name: 'Advertising', gpcOptOut: true },
  });
  expect(ads.status, ads.text).toBe(201);
  return channel;
}

/** The decoded string of the IABGPP_HDR_GppString key, and the section `name` in it. */
function decodedKeys(keys: Map<string, string | number>, name: string) {
  const model = new GppModel(keys.get('IABGPP_HDR_GppString') as string);
  return { header: model.getHeader(), section: model.getSection(name) as Record<string, unknown>, model };
}

describe('@consent-service/core on a US channel: the IABGPP_ keys', () => {
  it('writes the keys of the device state before and after a choice, the string sent with the decision', async () => {
    const channel = await usChannel();
    const writer = recordingWriter();
    const options: ConsentClientOptions = {
      baseUrl: t.baseUrl,
      siteKey: channel.siteKey,
      appId: APP_ID,
      storage: memoryStorage(),
      region: 'US-CA',
      defaultsWriter: writer,
    };
    const client = createConsentClient(options);
    await client.load();
    expect(client.shouldAsk()).toBe(false);
    // Before any choice, as __gpp answers on the web: the notices given, nothing opted out.
    expect(writer.named('')).toEqual([
      'IABGPP_7_String',
      'IABGPP_GppSID',
      'IABGPP_HDR_GppString',
      'IABGPP_HDR_Sections',
      'IABGPP_HDR_Version',
    ]);
    expectSpecTypes(writer.keys);
    let { header, section, model } = decodedKeys(writer.keys, 'usnat');
    expect(header).toEqual({ Id: 3, Version: 1, SectionIds: [7] });
    expect(writer.keys.get('IABGPP_HDR_Version')).toBe('1');
    expect(writer.keys.get('IABGPP_HDR_Sections')).toBe('7');
    expect(writer.keys.get('IABGPP_GppSID')).toBe('7');
    expect(writer.keys.get('IABGPP_7_String')).toBe(model.encodeSection('usnat'));
    expect(section).toMatchObject({ SaleOptOutNotice: 1, SaleOptOut: 2, SharingOptOut: 2, Gpc: false });

    await client.rejectAll();
    expect(await client.flush()).toBe(true);
    ({ section, model } = decodedKeys(writer.keys, 'usnat'));
    expect(section).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1 });
    expect(writer.keys.get('IABGPP_7_String')).toBe(model.encodeSection('usnat'));
    const [event] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(event.gppString).toBe(writer.keys.get('IABGPP_HDR_GppString'));

    // Forgotten: the regime's defaults again, so the opt-out is no longer said.
    await client.forget();
    expect(decodedKeys(writer.keys, 'usnat').section).toMatchObject({ SaleOptOut: 2 });
    client.close();

    // The same device in an opt-in region: no GPP, every IABGPP_ key removed.
    const abroad = createConsentClient({ ...options, region: 'DE' });
    await abroad.load();
    expect(writer.named('IABGPP_')).toEqual([]);
    abroad.close();
  });

  it('writes the state section under gppSections "state", and removes a section no longer in force', async () => {
    const channel = await usChannel({ gppSections: 'state' });
    const writer = recordingWriter();
    const storage = memoryStorage();
    const options: ConsentClientOptions = {
      baseUrl: t.baseUrl,
      siteKey: channel.siteKey,
      appId: APP_ID,
      storage,
      region: 'US-CA',
      defaultsWriter: writer,
    };
    const california = createConsentClient(options);
    await california.load();
    await california.decide({ analytics: true, ads: false });
    expect(await california.flush()).toBe(true);
    expectSpecTypes(writer.keys);
    expect(writer.keys.get('IABGPP_GppSID')).toBe('8');
    expect(writer.keys.get('IABGPP_HDR_Sections')).toBe('8');
    const { section, model } = decodedKeys(writer.keys, 'usca');
    expect(section).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1 });
    expect(writer.keys.get('IABGPP_8_String')).toBe(model.encodeSection('usca'));
    california.close();

    // A restart in Virginia: its own section, and California's key is gone.
    const virginia = createConsentClient({ ...options, region: 'US-VA' });
    await virginia.load();
    expect(writer.named('IABGPP_')).toEqual([
      'IABGPP_9_String',
      'IABGPP_GppSID',
      'IABGPP_HDR_GppString',
      'IABGPP_HDR_Sections',
      'IABGPP_HDR_Version',
    ]);
    expect(decodedKeys(writer.keys, 'usva').section).toMatchObject({ SaleOptOut: 1 });
    virginia.close();
  });
});

describe('@consent-service/core on a TCF channel with a gppCmpId', () => {
  it('writes the IABTCF_ keys and the EU TCF section carrying the same TC string; forgetting removes the IABGPP_ keys', async () => {
    const channel = await createAppChannel(t, tenant.testKey, {
      gppCmpId: 300,
      tcf: { cmpId: 300, vendorIds: [1, 2, 8, 21], publisherCountryCode: 'FR' },
    });
    const writer = recordingWriter();
    const client = createConsentClient({
      baseUrl: t.baseUrl,
      siteKey: channel.siteKey,
      appId: APP_ID,
      storage: memoryStorage(),
      defaultsWriter: writer,
    });
    await client.load();
    // No TC string before a choice: no GPP string either (the web's __gpp is "not ready").
    expect(writer.named('IABGPP_')).toEqual([]);
    await client.acceptAll();
    expect(await client.flush()).toBe(true);
    expectSpecTypes(writer.keys);
    expect(writer.keys.get('IABGPP_GppSID')).toBe('2');
    expect(writer.keys.get('IABGPP_HDR_Sections')).toBe('2');
    const tcString = writer.keys.get('IABTCF_TCString') as string;
    const [event] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(event.tcString).toBe(tcString);
    // The section is the TC string, as IAB's decoders read both.
    const { section } = decodedKeys(writer.keys, 'tcfeuv2');
    const tc = TCString.decode(tcString);
    const ids = (vector: { has(id: number): boolean; maxId: number }) =>
      Array.from({ length: vector.maxId }, (_, i) => i + 1).filter((id) => vector.has(id));
    expect(writer.keys.get('IABGPP_2_String')).toBe(tcString);
    expect(section).toMatchObject({
      CmpId: tc.cmpId,
      PublisherCountryCode: 'FR',
      VendorConsents: ids(tc.vendorConsents),
      VendorLegitimateInterests: ids(tc.vendorLegitimateInterests),
    });
    expect(ids(tc.vendorConsents)).toEqual([1, 2, 8, 21]);
    await client.forget();
    expect(writer.named('IABGPP_')).toEqual([]);
    expect(writer.named('IABTCF_')).toEqual([
      'IABTCF_CmpSdkID',
      'IABTCF_CmpSdkVersion',
      'IABTCF_PolicyVersion',
      'IABTCF_gdprApplies',
    ]);
    client.close();
  });
});
