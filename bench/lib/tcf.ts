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
import { systemClock } from '../../src/platform/clock.ts';
import { createServices } from '../../src/services.ts';
import { buildVendorList, serveVendorList, TEST_VENDORS } from '../../test/helpers/gvl.ts';
import type { BenchStore, Fixture } from './setup.ts';

const CMP_ID = 300;

/** The new configVersion of the TCF channel and a TC string of a visitor who accepted all. */
export async function prepareTcf(
  bench: BenchStore,
  fixture: Fixture,
  dataDir: string,
): Promise<{ configVersion: number; tcString: string }> {
  const list = buildVendorList();
  const server = await serveVendorList(list);
  const store = await bench.open();
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', TCF_GVL_URL: server.url });
    const services = createServices({ store, clock: systemClock, config });
    const quiet = { warn: () => {}, info: () => {} };
    await services.tcf.mirror.run(quiet as never);
    const app = await buildApp({ config, store, clock: systemClock, services, logger: false });
    const vendorIds = TEST_VENDORS.map((v) => v.id);
    const res = await app.inject({
      method: 'PATCH',
      url: `/v1/channels/${fixture.channelId}`,
      headers: { authorization: `Bearer ${fixture.liveKey}` },
      payload: { tcf: { cmpId: CMP_ID, vendorIds, publisherCountryCode: 'DE' } },
    });
    await app.close();
    if (res.statusCode !== 200) throw new Error(`PATCH tcf: ${res.statusCode} ${res.body}`);
    const model = new TCModel(new GVL(list as never));
    model.cmpId = CMP_ID;
    model.cmpVersion = 1;
    model.isServiceSpecific = true;
    model.publisherCountryCode = 'DE';
    model.setAllPurposeConsents();
    model.setAllVendorConsents();
    model.setAllPurposeLegitimateInterests();
    model.setAllVendorLegitimateInterests();
    model.setAllSpecialFeatureOptins();
    model.vendorsDisclosed.set(vendorIds);
    return { configVersion: res.json().data.configVersion, tcString: TCString.encode(model) };
  } finally {
    await store.close();
    await server.close();
  }
}
