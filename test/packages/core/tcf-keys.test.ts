import { TCString } from '@iabtechlabtcf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsentClient } from '../../../packages/core/src/index.ts';
import type { Tenant, TestApp } from '../../helpers/app.ts';
import { SITES_TEST_ENV } from '../../helpers/sites.ts';
import { startTcfTestApp } from '../../helpers/tcf.ts';
import { APP_ID, createAppChannel, evidenceOf, memoryStorage } from './app-channel.ts';
import { expectSpecTypes, recordingWriter } from './in-app-spec.ts';

/**
 * A TCF app channel through @consent-service/core: the client makes the TC string on the channel's
 * vendor list slice (as the web's layers do), the service accepts it, and the IABTCF_ keys the app's
 * writer gets are the string's, read back by IAB's decoder and typed as IAB's in-app table says
 * (in-app-spec.ts); forgetting removes them.
 */
let t: TestApp;
let tenant: Tenant;
const CMP_ID = 300;
const VENDORS = [1, 2, 8, 21];
beforeAll(async () => {
  ({ t } = await startTcfTestApp({ env: SITES_TEST_ENV }));
  tenant = await t.tenant();
});
afterAll(() => t?.close());

describe('@consent-service/core on a TCF app channel', () => {
  it('records "Accept all" with its TC string and hands the IABTCF_ keys to the writer', async () => {
    const channel = await createAppChannel(t, tenant.testKey);
    const patched = await t.http.patch(`/v1/channels/${channel.id}`, {
      key: tenant.testKey,
      body: { tcf: { cmpId: CMP_ID, vendorIds: VENDORS, publisherCountryCode: 'FR' } },
    });
    expect(patched.status, patched.text).toBe(200);
    const storage = memoryStorage();
    const writer = recordingWriter();
    const options = {
      baseUrl: t.baseUrl,
      siteKey: channel.siteKey,
      appId: APP_ID,
      platform: 'ios' as const,
      storage,
      defaultsWriter: writer,
    };
    const client = createConsentClient(options);
    await client.load();
    expect(client.shouldAsk()).toBe(true);
    // Before any choice: which CMP runs, and that GDPR applies.
    expect(Object.fromEntries(writer.keys)).toEqual({
      IABTCF_CmpSdkID: CMP_ID,
      IABTCF_CmpSdkVersion: expect.any(Number),
      IABTCF_PolicyVersion: 5,
      IABTCF_gdprApplies: 1,
    });

    expectSpecTypes(writer.keys);

    await client.acceptAll();
    expect(await client.flush()).toBe(true);
    // Every key is one of the spec's table, with the type it gives.
    expectSpecTypes(writer.keys);
    const [event] = await evidenceOf(t, tenant.testKey, channel.id);
    const tcString = writer.keys.get('IABTCF_TCString') as string;
    expect(event.tcString).toBe(tcString);
    const decoded = TCString.decode(tcString);
    expect(decoded.cmpId).toBe(CMP_ID);
    const vendorBits = writer.keys.get('IABTCF_VendorConsents') as string;
    for (const id of VENDORS)
      expect(vendorBits[id - 1] === '1', `vendor ${id}`).toBe(decoded.vendorConsents.has(id));
    expect(decoded.vendorConsents.has(2)).toBe(true);
    expect(writer.keys.get('IABTCF_PublisherCC')).toBe('FR');
    expect(writer.keys.get('IABTCF_PurposeConsents')).toMatch(/^1[01]*$/);
    client.close();

    // A restart: the decision holds with its string, and the keys stay.
    const restarted = createConsentClient(options);
    await restarted.load();
    expect(restarted.shouldAsk()).toBe(false);
    expect(writer.keys.get('IABTCF_TCString')).toBe(tcString);

    await restarted.forget();
    expect(restarted.shouldAsk()).toBe(true);
    expect([...writer.keys.keys()].sort()).toEqual([
      'IABTCF_CmpSdkID',
      'IABTCF_CmpSdkVersion',
      'IABTCF_PolicyVersion',
      'IABTCF_gdprApplies',
    ]);
    restarted.close();
  });
});
