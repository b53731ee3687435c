import fs from 'node:fs';
import { TCString } from '@iabtechlabtcf/core';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { pieceBundle } from '../../src/modules/sites/sdk-bundle.ts';
import type { TestApp } from '../helpers/app.ts';
import { writeAtpFile } from '../helpers/atp.ts';
import type { VendorListServer } from '../helpers/gvl.ts';
import { SITES_TEST_ENV } from '../helpers/sites.ts';
import { startTcfTestApp } from '../helpers/tcf.ts';
import { SHOTS } from './fixture.ts';
import {
  createSite,
  evidenceOf,
  launchChromium,
  type PageServer,
  type Site,
  shopPage,
  startPageServer,
} from './harness.ts';

/**
 * The TCF browser tests (docs/guides/tcf.md): a service whose worker mirrors the tests'
 * vendor list (five vendors, version 100), a customer's page carrying the snippet exactly as the
 * service hands it out, and a vendor's tag that talks to `__tcfapi` before the SDK has loaded.
 */
export const CMP_ID = 341;
export const CMP_VERSION = 3;
export const VENDOR_IDS = [1, 2, 8, 21, 32];
export const TCF_SETTINGS = {
  cmpId: CMP_ID,
  cmpVersion: CMP_VERSION,
  vendorIds: VENDOR_IDS,
  publisherCountryCode: 'DE',
  purposeOneTreatment: false,
};
export const LAYERS = '[data-consent-tcf]';

/**
 * A vendor's tag, run right after the snippet's stubs: a `ping` (the stub answers it at once), an
 * event listener and a `getTCData`, both queued by the stub until the CMP knows the visitor's state.
 */
export const VENDOR_TAG = `<script>
window.stubPing = null; window.tcfEvents = []; window.queuedTcData = null;
__tcfapi('ping', 2, function (p) { window.stubPing = p; });
__tcfapi('addEventListener', 2, function (d, ok) {
  tcfEvents.push({ status: d.eventStatus, tcString: d.tcString, cmpStatus: d.cmpStatus, ok: ok, id: d.listenerId, gdprApplies: d.gdprApplies, cmpId: d.cmpId });
});
__tcfapi('getTCData', 2, function (d, ok) { window.queuedTcData = { tcString: d.tcString, eventStatus: d.eventStatus, ok: ok, gdprApplies: d.gdprApplies, cmpStatus: d.cmpStatus }; });
</script>`;

/**
 * A vendor's frame from another origin: it finds the `__tcfapiLocator` frame up its ancestors, as
 * IAB's CMP API asks of scripts in iframes, and calls the API by postMessage (`__tcfapiCall`).
 */
export const VENDOR_FRAME = `<!doctype html><html lang="en"><head><title>Vendor frame</title></head><body><script>
window.callTcf = function (command, parameter) {
  return new Promise(function (resolve) {
    var f = window, cmpFrame = null;
    while (f) {
      try { if (f.frames.__tcfapiLocator) { cmpFrame = f; break; } } catch (e) {}
      if (f === window.top) break;
      f = f.parent;
    }
    if (!cmpFrame) return resolve('no locator');
    var callId = 'c' + Math.random().toString(36).slice(2);
    window.addEventListener('message', function on(e) {
      var d = typeof e.data === 'string' ? JSON.parse(e.data) : e.data;
      if (!d || !d.__tcfapiReturn || d.__tcfapiReturn.callId !== callId) return;
      window.removeEventListener('message', on);
      resolve(d.__tcfapiReturn);
    });
    cmpFrame.postMessage({ __tcfapiCall: { command: command, version: 2, callId: callId, parameter: parameter } }, '*');
  });
};
</script></body></html>`;

/** A TC string read with IAB Tech Lab's own decoder; what a vector holds, as sorted ids. */
export function decodeTc(tcString: string) {
  const model = TCString.decode(tcString);
  const ids = (vector: { forEach(fn: (on: boolean, id: number) => void): void }) => {
    const out: number[] = [];
    vector.forEach((on, id) => {
      if (on) out.push(id);
    });
    return out;
  };
  return {
    model,
    purposeConsents: ids(model.purposeConsents),
    purposeLegitimateInterests: ids(model.purposeLegitimateInterests),
    vendorConsents: ids(model.vendorConsents),
    vendorLegitimateInterests: ids(model.vendorLegitimateInterests),
    specialFeatureOptins: ids(model.specialFeatureOptins),
    vendorsDisclosed: ids(model.vendorsDisclosed),
  };
}

export interface TcfVisit {
  context: BrowserContext;
  page: Page;
  /** `METHOD path` of every request the context made (the service's address removed). */
  urls: string[];
  /** Bodies of the decisions posted to …/preferences. */
  posts: Array<Record<string, any>>;
  tcfJs: string;
}

/** Calls `__tcfapi` on the page (or frame): `{value, ok}` as its callback got them. */
export const tcfapi = (page: Page | Frame, command: string, parameter?: unknown): Promise<any> =>
  page.evaluate(
    `new Promise((resolve) => __tcfapi(${JSON.stringify(command)}, 2, (value, ok) => resolve({ value, ok }), ${
      parameter === undefined ? 'undefined' : JSON.stringify(parameter)
    }))`,
  );

export function tcfFixture() {
  const f = {
    t: undefined as unknown as TestApp,
    gvl: undefined as unknown as VendorListServer,
    key: '',
    pages: undefined as unknown as PageServer,
    browser: undefined as unknown as Browser,

    /** A ready site (purposes necessary, analytics, marketing) whose channel is a TCF CMP. */
    async tcfSite(settings: Record<string, unknown> | null = TCF_SETTINGS): Promise<Site> {
      const site = await createSite(f.t, f.key, f.pages.origin);
      if (!settings) return site;
      const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
        key: f.key,
        body: { tcf: settings },
      });
      expect(res.status, res.text).toBe(200);
      return { ...site, configVersion: res.body.data.configVersion };
    },

    /**
     * The shop page with the service's snippet in place of a bare SDK tag (its address made this
     * test server's, its SDK tag given the declared region), the vendor's tag, and a vendor's frame
     * from the other loopback origin (localhost). A fresh context unless `context` is given.
     */
    async visit(
      site: Site,
      region = 'FR',
      options: {
        context?: BrowserContext;
        locale?: string;
        /** The SDK tag alone, as pasted before the channel had tcf: no stub, no vendor's tag. */
        bare?: boolean;
      } = {},
    ): Promise<TcfVisit> {
      const snippet: string = (await f.t.http.get(`/v1/public/sites/${site.siteKey}/snippet`)).body.data.html;
      const tagged = snippet
        .replace(/src="[^"]*\/v1\//, `src="${f.t.baseUrl}/v1/`)
        .replace(' async>', ` data-region="${region}" async>`);
      const sdkSrc = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`;
      const bare = `<script src="${sdkSrc}" data-site-key="${site.siteKey}" async></script>`;
      const frameSrc = `${f.pages.origin.replace('127.0.0.1', 'localhost')}/vendor-frame.html`;
      const frame = `<iframe src="${frameSrc}" title="Vendor" name="vendor" width="300" height="60"></iframe>`;
      const tags = options.bare
        ? bare.replace(' async>', ` data-region="${region}" async>`)
        : `${tagged}\n${VENDOR_TAG}`;
      const html = shopPage(sdkSrc, site.siteKey, { gtag: true })
        .replace(bare, tags)
        .replace('</main>', `${frame}</main>`);
      expect(html).toContain(tags);
      const path = `/tcf-${site.siteKey}-${region}${options.bare ? '-bare' : ''}.html`;
      f.pages.setPage(path, html);
      f.pages.setPage('/vendor-frame.html', VENDOR_FRAME);
      const context =
        options.context ??
        (await f.browser.newContext({
          locale: options.locale ?? 'en-US',
          viewport: { width: 1280, height: 800 },
        }));
      const urls: string[] = [];
      context.on('request', (r) => urls.push(`${r.method()} ${r.url().replace(f.t.baseUrl, '')}`));
      const posts: Array<Record<string, any>> = [];
      context.on('request', (r) => {
        if (r.method() === 'POST' && r.url().includes('/preferences')) posts.push(r.postDataJSON());
      });
      const page = await context.newPage();
      await page.goto(f.pages.origin + path);
      return {
        context,
        page,
        urls,
        posts,
        tcfJs: `GET /v1/public/sites/${site.siteKey}/tcf.js?v=${pieceBundle('tcf').version}`,
      };
    },

    /** The vendor's cross-origin frame of a page. */
    vendorFrame(page: Page): Frame {
      const frame = page.frames().find((fr) => fr.url().endsWith('/vendor-frame.html'));
      expect(frame, 'vendor frame').toBeDefined();
      return frame!;
    },

    /** The visitor's subjectId from the SDK's consent cookie. */
    async subjectIdOf(context: BrowserContext, site: Site): Promise<string> {
      const cookie = (await context.cookies()).find((c) => c.name === `cs_consent_${site.siteKey}`);
      expect(cookie, 'consent cookie').toBeDefined();
      return JSON.parse(decodeURIComponent(cookie!.value)).s;
    },

    /** Waits until the visitor's evidence holds `count` events and returns them, newest first. */
    async recorded(context: BrowserContext, site: Site, count: number) {
      const subjectId = await f.subjectIdOf(context, site);
      let events: Array<Record<string, any>> = [];
      const eventCount = async () => {
        events = await evidenceOf(f.t, f.key, site, subjectId);
        return events.length;
      };
      await expect.poll(eventCount, { timeout: 10_000 }).toBe(count);
      return events;
    },
  };

  beforeAll(async () => {
    // The service serves sdk/dist, built from the sources under test once per run
    // (test/helpers/sdk-bundles-setup.ts), not once per file.
    fs.mkdirSync(SHOTS, { recursive: true });
    const [tcf, pages, browser] = await Promise.all([
      // Google's ATP list from a file: fetched only once a test asks for it (loadAtpList).
      startTcfTestApp({ env: { ...SITES_TEST_ENV, GOOGLE_ATP_URL: writeAtpFile() } }),
      startPageServer(),
      launchChromium(),
    ]);
    [f.t, f.gvl, f.pages, f.browser] = [tcf.t, tcf.gvl, pages, browser];
    f.key = (await f.t.tenant()).testKey;
  });

  afterAll(async () => {
    await f.browser?.close();
    await f.pages?.close();
    await f.t?.close();
  });

  return f;
}

/** Waits until a listener registered by the vendor's tag has heard `status`; returns that event. */
export async function heard(page: Page, status: string): Promise<Record<string, any>> {
  await page.waitForFunction(`window.tcfEvents.some((e) => e.status === ${JSON.stringify(status)})`);
  const events: Array<Record<string, any>> = await page.evaluate('window.tcfEvents');
  return events.filter((e) => e.status === status).at(-1)!;
}
