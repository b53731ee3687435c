import { TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsentClientOptions, createConsentClient } from '../../../packages/core/src/index.ts';
import type { Tenant, TestApp } from '../../helpers/app.ts';
import { SITES_TEST_ENV } from '../../helpers/sites.ts';
import { refreshVendorList, startTcfTestApp } from '../../helpers/tcf.ts';
import { createIdentitySecret, mintToken } from '../../identity/identity-helpers.ts';
import { APP_ID, createAppChannel, evidenceOf, memoryStorage } from './app-channel.ts';
import { expectSpecTypes, recordingWriter } from './in-app-spec.ts';

/**
 * @consent-service/core on a TCF app channel, against the real service: an app's own second layer
 * (per-vendor consents and objections, encoded as the web's "Manage options" encodes its toggles,
 * checked with IAB's decoder), a signed-in visitor's account choice with its TC string on another
 * device (the string the service says it serves now), and the vendor list in the device's language.
 */
let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
});
afterAll(() => t?.close());

const VENDORS = [1, 2, 8, 21];

/** A TCF app channel with the test list's vendors 1, 2, 8 and 21 (not 32). */
async function tcfChannel() {
  const channel = await createAppChannel(t, tenant.testKey, {
    tcf: { cmpId: 300, vendorIds: VENDORS, publisherCountryCode: 'FR' },
  });
  const options = (extra: Partial<ConsentClientOptions> = {}): ConsentClientOptions => ({
    baseUrl: t.baseUrl,
    siteKey: channel.siteKey,
    appId: APP_ID,
    storage: memoryStorage(),
    ...extra,
  });
  return { channel, options };
}

/** The ids a decoded vector holds. */
const ids = (vector: { has(id: number): boolean; maxId: number }) =>
  Array.from({ length: vector.maxId }, (_, i) => i + 1).filter((id) => vector.has(id));

describe('per-vendor choices in the TC string', () => {
  it('encodes what the app’s second layer chose, only where the channel offers it, in the string and the keys', async () => {
    const { channel, options } = await tcfChannel();
    const writer = recordingWriter();
    const client = createConsentClient(options({ defaultsWriter: writer }));
    await client.load();
    const view = client.tcf();
    expect(view?.language).toBe('en');
    expect(view?.offered).toMatchObject({ vendorConsents: VENDORS, vendorLegitimateInterests: VENDORS });
    expect(view?.offered.purposeLegitimateInterests).not.toContain(3); // consent only
    expect(Object.keys(view?.vendorList.vendors ?? {}).sort()).toEqual(['1', '2', '21', '8']);
    expect(view?.current).toBeNull();

    await client.decide(
      { analytics: true },
      {
        source: 'preference_center',
        tcf: {
          purposeConsents: [1, 2, 3, 4],
          // Purpose 3 takes consent only: an objection toggle never exists for it.
          purposeLegitimateInterests: [7, 3],
          // Vendor 32 is not the channel's.
          vendorConsents: [2, 8, 32],
          vendorLegitimateInterests: [21],
          specialFeatureOptins: [1],
        },
      },
    );
    expect(await client.flush()).toBe(true);
    const tcString = writer.keys.get('IABTCF_TCString') as string;
    const decoded = TCString.decode(tcString);
    expect(ids(decoded.vendorConsents)).toEqual([2, 8]);
    expect(ids(decoded.vendorLegitimateInterests)).toEqual([21]);
    expect(ids(decoded.purposeConsents)).toEqual([1, 2, 3, 4]);
    expect(ids(decoded.purposeLegitimateInterests)).toEqual([7]);
    expect(ids(decoded.specialFeatureOptins)).toEqual([1]);
    expect(ids(decoded.vendorsDisclosed)).toEqual(VENDORS);
    expect(decoded.consentScreen).toBe(2);
    // The keys say what IAB's decoder reads, bit by bit, with the spec table's types.
    expect(writer.keys.get('IABTCF_VendorConsents')).toBe('01000001');
    expect(writer.keys.get('IABTCF_VendorLegitimateInterests')).toBe(`${'0'.repeat(20)}1`);
    expect(writer.keys.get('IABTCF_PurposeConsents')).toBe('1111');
    expect(writer.keys.get('IABTCF_PurposeLegitimateInterests')).toBe('0000001');
    expectSpecTypes(writer.keys);
    // The service took it: the evidence keeps the same string.
    const [event] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(event.tcString).toBe(tcString);
    expect(event.decisions).toMatchObject({ analytics: 'granted', marketing: 'denied' });
    // The layer opens again on what was chosen.
    expect(client.tcf()?.current).toMatchObject({
      vendorConsents: [2, 8],
      vendorLegitimateInterests: [21],
      purposeLegitimateInterests: [7],
    });
    client.close();
  });

  it('"Reject all" refuses every vendor’s consent and legitimate interest', async () => {
    const { options } = await tcfChannel();
    const writer = recordingWriter();
    const client = createConsentClient(options({ defaultsWriter: writer }));
    await client.load();
    await client.rejectAll();
    const decoded = TCString.decode(writer.keys.get('IABTCF_TCString') as string);
    expect(ids(decoded.vendorConsents)).toEqual([]);
    expect(ids(decoded.vendorLegitimateInterests)).toEqual([]);
    client.close();
  });
});

describe('a signed-in visitor on a TCF channel', () => {
  it('brings the account’s TC string to another device, as the service serves it now', async () => {
    const { channel, options } = await tcfChannel();
    const { secret } = await createIdentitySecret(t, tenant.testKey, channel.id);
    const token = await mintToken(t, secret, channel.siteKey, { sub: 'account-tcf' });
    const phone = createConsentClient(options());
    await phone.load();
    expect(await phone.identify(token)).toBe(true);
    await phone.decide({ marketing: true }, { tcf: { purposeConsents: [1, 2], vendorConsents: [2, 8] } });
    expect(await phone.flush()).toBe(true);
    phone.close();

    // Vendor 8 leaves the channel (not a material change: nobody is asked again).
    const patched = await t.http.patch(`/v1/channels/${channel.id}`, {
      key: tenant.testKey,
      body: { tcf: { cmpId: 300, vendorIds: [1, 2, 21], publisherCountryCode: 'FR' } },
    });
    expect(patched.status, patched.text).toBe(200);

    const writer = recordingWriter();
    const tablet = createConsentClient(options({ defaultsWriter: writer }));
    await tablet.load();
    expect(tablet.shouldAsk()).toBe(true);
    expect(writer.keys.has('IABTCF_TCString')).toBe(false);
    expect(await tablet.identify(token)).toBe(true);
    expect(tablet.shouldAsk()).toBe(false);
    expect(tablet.getDecisions()).toEqual({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'granted',
    });
    const tcString = writer.keys.get('IABTCF_TCString') as string;
    const state = await t.http.get(
      `/v1/consent-state?${new URLSearchParams({ channelId: channel.id, accountId: 'account-tcf' })}`,
      { key: tenant.testKey },
    );
    expect(state.status, state.text).toBe(200);
    expect(tcString).toBe(state.body.data.tcString);
    expect(tcString).not.toBe(state.body.data.tcStringRecorded);
    const decoded = TCString.decode(tcString);
    expect(ids(decoded.vendorConsents)).toEqual([2]);
    expect(ids(decoded.vendorsDisclosed)).toEqual([1, 2, 21]);
    expect(writer.keys.get('IABTCF_VendorConsents')).toBe('01');
    expectSpecTypes(writer.keys);
    // The tablet took the account's choice: it recorded nothing of its own.
    expect(await tablet.flush()).toBe(true);
    expect(await evidenceOf(t, tenant.testKey, channel.id)).toHaveLength(1);
    tablet.close();

    // A device whose own choice is newer records it for the account, with its TC string.
    const laptopWriter = recordingWriter();
    const laptop = createConsentClient(options({ defaultsWriter: laptopWriter }));
    await laptop.load();
    await laptop.acceptAll();
    expect(await laptop.flush()).toBe(true);
    expect(await laptop.identify(token)).toBe(true);
    expect(await laptop.flush()).toBe(true);
    const events = await evidenceOf(t, tenant.testKey, channel.id);
    expect(events).toHaveLength(3);
    expect(events[0].tcString).toBe(laptopWriter.keys.get('IABTCF_TCString'));
    const after = await t.http.get(
      `/v1/consent-state?${new URLSearchParams({ channelId: channel.id, accountId: 'account-tcf' })}`,
      { key: tenant.testKey },
    );
    expect(after.body.data.tcStringRecorded).toBe(laptopWriter.keys.get('IABTCF_TCString'));
    laptop.close();
  });
});

describe('the vendor list in the device’s language', () => {
  it('asks for the channel’s language, as tcf.js does: French declarations and consentLanguage FR; else English', async () => {
    const { channel, options } = await tcfChannel();
    // The channel speaks French and Irish too; the mirror fetches IAB's translations it needs.
    const social = await t.http.post(`/v1/channels/${channel.id}/purposes`, {
      key: tenant.testKey,
      body: {
        key: 'social',
        name: 'Social media',
        translations: {
          fr: { name: 'Réseaux sociaux', description: null },
          ga: { name: 'Meáin shóisialta', description: null },
        },
      },
    });
    expect(social.status, social.text).toBe(201);
    await refreshVendorList(t);

    const requests: string[] = [];
    const french = createConsentClient(
      options({
        language: 'fr-FR',
        fetch: (url, init) => {
          requests.push(url);
          return fetch(url, init);
        },
      }),
    );
    await french.load();
    expect(requests.filter((url) => url.includes('/vendor-list'))).toEqual([
      expect.stringContaining('lang=fr'),
    ]);
    const view = french.tcf();
    expect(view?.language).toBe('fr');
    expect(view?.vendorList.purposes['1'].name).toBe('[fr] Store and/or access information on a device');
    // Vendors are not translated (IAB's language files have none).
    expect(view?.vendorList.vendors['21'].name).toBe('The Trade Desk');
    await french.acceptAll();
    expect(await french.flush()).toBe(true);
    const [event] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(TCString.decode(event.tcString).consentLanguage).toBe('FR');
    french.close();

    // Irish: no consent language of IAB's, so English as a whole, as the web's layers show it.
    const irish = createConsentClient(options({ language: 'ga' }));
    await irish.load();
    expect(irish.tcf()?.language).toBe('en');
    expect(irish.tcf()?.vendorList.purposes['1'].name).toBe('Store and/or access information on a device');
    await irish.acceptAll();
    expect(await irish.flush()).toBe(true);
    const [irishEvent] = await evidenceOf(t, tenant.testKey, channel.id);
    expect(TCString.decode(irishEvent.tcString).consentLanguage).toBe('EN');
    irish.close();
  });
});
