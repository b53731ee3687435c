/**
 * `bench/writepath.ts --tcf`: the fixture's channel made an IAB TCF channel, so that a consent write
 * can carry a TC string (decoded and checked by the service on the write path). The vendor list is
 * the tests' own (test/helpers/gvl.ts; IAB's cannot be fetched here), mirrored once through the
 * service's own mirror from a loopback server, and the string is built with @iabtechlabtcf/core as
 * the SDK's tcf.js builds it.
 */
import { GVL, TCModel, TCString } from '@iabtechlabtcf/core';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TCF_RELEASE } from '../../src/modules/tcf/settings/tcf-settings.service.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createServices } from '../../src/services.ts';
import { buildVendorList, serveVendorList, TEST_VENDORS } from '../../test/helpers/gvl.ts';
import { type BenchStore, type Fixture, SITE_ORIGIN } from './setup.ts';

const CMP_ID = 300;

/**
 * A TCF channel of the fixture's organization, made like the fixture's own channel (the same
 * purposes and origin, so one request body fits both) with `tcf` set at creation: its site key, its
 * configVersion and a TC string of a visitor who accepted all. A channel of its own, so that the
 * fixture's channel (the `after` and `before` sides) stays as it was, at its current version.
 */
export async function prepareTcf(
  bench: BenchStore,
  fixture: Fixture,
  dataDir: string,
): Promise<{ siteKey: string; configVersion: number; tcString: string }> {
  const list = buildVendorList();
  const server = await serveVendorList(list);
  const store = await bench.open();
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      TCF_GVL_URL: server.url,
    });
    const services = createServices({ store, clock: systemClock, config });
    const quiet = { warn: () => {}, info: () => {} };
    // The mirror fetches only once the list is asked for (or a channel uses TCF): this bench asks.
    await services.tcf.requestFetch();
    await services.tcf.mirror.run(quiet as never);
    const app = await buildApp({ config, store, clock: systemClock, services, logger: false });
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await app.inject({
        method,
        url,
        payload,
        headers: { authorization: `Bearer ${fixture.liveKey}` },
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json().data;
    };
    const vendorIds = TEST_VENDORS.map((v) => v.id);
    const channel = await call('POST', '/v1/channels', {
      name: 'TCF shop',
      privacyPolicy: { url: 'https://shop.example.com/privacy', version: '2024-05', retentionDays: 365 },
      tcf: { cmpId: CMP_ID, vendorIds, publisherCountryCode: 'DE' },
    });
    const model = await call('GET', `/v1/channels/${fixture.channelId}/purposes?limit=100`);
    for (const p of model) {
      const { key, name, required, gpcOptOut, consentModeSignals } = p;
      await call('POST', `/v1/channels/${channel.id}/purposes`, {
        key,
        name,
        required,
        gpcOptOut,
        consentModeSignals,
      });
    }
    await call('POST', `/v1/channels/${channel.id}/origins`, { origin: SITE_ORIGIN });
    const current = await call('GET', `/v1/channels/${channel.id}`);
    await app.close();
    const tc = new TCModel(new GVL(list as never));
    tc.cmpId = CMP_ID;
    // What the channel's config carries (it pins none), as the service checks (tc_channel_mismatch).
    tc.cmpVersion = TCF_RELEASE;
    // The channel's purposes in the Publisher TC segment, as tcf.js writes it (none granted: a
    // string may grant less than the decisions, never more).
    tc.numCustomPurposes = model.length;
    tc.isServiceSpecific = true;
    tc.publisherCountryCode = 'DE';
    tc.setAllPurposeConsents();
    tc.setAllVendorConsents();
    tc.setAllPurposeLegitimateInterests();
    tc.setAllVendorLegitimateInterests();
    tc.setAllSpecialFeatureOptins();
    tc.vendorsDisclosed.set(vendorIds);
    return { siteKey: current.siteKey, configVersion: current.configVersion, tcString: TCString.encode(tc) };
  } finally {
    await store.close();
    await server.close();
  }
}
