/**
 * A test app whose worker already mirrors a Global Vendor List made by the tests: the base for
 * every TCF test (channels with `tcf`, the visitor config, decisions with a TC string, the SDK).
 *
 *   const { t, gvl } = await startTcfTestApp();
 *   afterAll(() => t.close()); // closes the app AND the vendor list server
 *
 * `gvl` is the loopback server of test/helpers/gvl.ts: `gvl.publish(buildVendorList({ version: 101 }))`
 * then `await refreshVendorList(t)` stores the next version; `gvl.fail(503)` makes fetches fail.
 * `gvl.close()` may be called on its own (it is idempotent); `t.close()` calls it too.
 */
import { Segment, SegmentEncoder, type TCModel } from '@iabtechlabtcf/core';
import { TCF_RELEASE } from '../../src/modules/tcf/settings/tcf-settings.service.ts';
import { startTestApp, type TestApp } from './app.ts';
import { buildVendorList, serveVendorList, type VendorListServer } from './gvl.ts';

export interface TcfTestApp {
  t: TestApp;
  gvl: VendorListServer;
}

export async function startTcfTestApp(
  options: {
    /** Extra settings (TCF_GVL_URL is set to the loopback server unless given here). */
    env?: Record<string, string>;
    /** What the server publishes first (default: buildVendorList(), version 100, five vendors). */
    list?: ReturnType<typeof buildVendorList>;
    /** Cache-Control max-age the server sends (default 600). */
    maxAgeSeconds?: number;
    /** false: start the app without running the worker, so no list is stored yet. */
    load?: boolean;
  } = {},
): Promise<TcfTestApp> {
  const server = await serveVendorList(options.list ?? buildVendorList(), {
    maxAgeSeconds: options.maxAgeSeconds,
  });
  let closed: Promise<void> | null = null;
  const gvl: VendorListServer = Object.assign(Object.create(Object.getPrototypeOf(server)), server, {
    close: () => {
      closed ??= server.close();
      return closed;
    },
  });
  // Object.assign copies the getter's value, not the accessor: keep maxAgeSeconds live.
  Object.defineProperty(gvl, 'maxAgeSeconds', {
    get: () => server.maxAgeSeconds,
    set: (value: number) => {
      server.maxAgeSeconds = value;
    },
  });
  let t: TestApp;
  try {
    // The vendors' storage disclosures are served by the same loopback server.
    t = await startTestApp({
      env: { TCF_GVL_URL: server.url, TCF_DISCLOSURE_ALLOW_PRIVATE_TARGETS: 'true', ...options.env },
    });
  } catch (error) {
    await gvl.close();
    throw error;
  }
  const closeApp = t.close.bind(t);
  t.close = async () => {
    try {
      await closeApp();
    } finally {
      await gvl.close();
    }
  };
  if (options.load !== false) await refreshVendorList(t);
  return { t, gvl };
}

/**
 * Makes the mirror due now and runs the worker: what the next fetch would do, without waiting for
 * max-age. Returns the mirror's state after the run.
 */
export async function refreshVendorList(t: TestApp) {
  const services = t.app.services;
  await t.store.tx((tx) => services.tcf.requestRefresh(tx));
  await t.worker.runDue();
  return services.tcf.mirrorState(t.store.db);
}

/**
 * A channel that uses TCF (vendor 1 of the test list): without one the mirror fetches only when the
 * list is asked for, so tests of its refreshes create one first.
 */
export async function useTcf(t: TestApp): Promise<void> {
  const tenant = await t.tenant();
  const res = await t.http.post('/v1/channels', {
    key: tenant.testKey,
    body: { name: 'Uses TCF', tcf: { cmpId: 300, vendorIds: [1], publisherCountryCode: 'FR' } },
  });
  if (res.status !== 201) throw new Error(`TCF channel not created: ${res.status} ${res.text}`);
}

/**
 * What tcf.js writes in every string besides the visitor's choice (sdk/src/tcf/tc-model.ts), so a
 * test's hand-made string keeps the server's rules: the service's TCF release as CmpVersion (the
 * channel pins none) and a Publisher TC segment with the notice's purposes as custom purposes
 * (createReadySite's three; none granted unless the test sets them, and granting less than the
 * decisions is allowed). Call it before the test sets anything of its own.
 */
export function asTcfJsWrites(model: TCModel, purposes = 3): TCModel {
  model.cmpVersion = TCF_RELEASE;
  model.numCustomPurposes = purposes;
  return model;
}

/**
 * A hostile string: `model` encoded by IAB's SegmentEncoder segment by segment (joined with '.'),
 * never by TCString.encode, whose semantic pass would quietly make it compliant (drop a vendor's
 * undeclared signals, unset legitimate interest for purposes 3–6, write LastUpdated and the
 * consent language itself). By default the segments tcf.js writes: core, DisclosedVendors,
 * Publisher TC.
 */
export function segmentEncoded(
  model: TCModel,
  segments: Segment[] = [Segment.CORE, Segment.VENDORS_DISCLOSED, Segment.PUBLISHER_TC],
): string {
  return segments.map((segment) => SegmentEncoder.encode(model, segment)).join('.');
}
