import { gzipSync } from 'node:zlib';
import { GppModel } from '@iabgpp/cmpapi';
import type { Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { buildAll, buildPiece, buildSdk } from '../../sdk/build.ts';
import { compress } from '../../src/platform/http/bundle-encodings.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList } from '../helpers/tcf.ts';
import { action, BANNER } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { US_OPT_OUT } from './regions-helpers.ts';
import {
  CMP_ID,
  CMP_VERSION,
  decodeTc,
  heard,
  LAYERS,
  TCF_SETTINGS,
  tcfapi,
  tcfFixture,
  VENDOR_IDS,
} from './tcf-helpers.ts';

/**
 * docs/guides/tcf.md: the IAB TCF CMP API of a TCF channel's pages. The page is
 * the customer's: the snippet as the service hands it out (IAB's stub, then sdk.js), a vendor's tag
 * that calls `__tcfapi` before the SDK has loaded, and a vendor's frame from another origin.
 */
/**
 * Every visitor loads sdk.js, so TCF may add to it only the loader (at most 300 bytes gzipped, issue
 * 31) and the small CMP that answers `__tcfapi` where tcf.js does not run (at most 300 bytes with
 * brotli); IAB's libraries and the layers are in tcf.js, which only opt-in visitors of TCF
 * channels load. Each is measured as sdk.js against the same build without it (before TCF, commit
 * da34b36, the whole of sdk.js was 9,414 bytes gzipped).
 */
const TCF_SDK_GROWTH_LIMIT = 300;
const TCF_ANSWERS_BROTLI_LIMIT = 300;
/**
 * tcf.js is IAB's CMP API and encoder plus the layers, with their sentences in 25 languages (issue
 * 41: about 24 KB of the whole, gzipped; esbuild writes non-ASCII text as escapes); the bound only
 * catches a doubling (a second copy).
 */
const MAX_TCF_GZIP_BYTES = 64 * 1024;

/** sdk.js as the build makes it, but with the files matching `filter` replaced by `contents`. */
async function sdkWith(filter: RegExp, contents: string): Promise<string> {
  const replace: Plugin = {
    name: 'replace',
    setup(b) {
      b.onLoad({ filter }, () => ({ contents, loader: 'ts' }));
    },
  };
  return (await buildAll([replace])).sdk;
}

describe('TCF bundles', () => {
  it('sdk.js grows by at most 300 bytes gzipped for the loader and 300 with brotli for the CMP without tcf.js, and holds none of IAB’s TCF code; tcf.js is a minified IIFE of its own with no host baked in', async () => {
    const [sdk, tcf, withoutTcf, withoutAnswers] = await Promise.all([
      buildSdk(),
      buildPiece('tcf'),
      sdkWith(/tcf-loader\.ts$/, 'export const TCF_TIMEOUT_MS = 0; export const loadTcf = () => null;'),
      sdkWith(/tcf-answers\.ts$/, "export const CMP_API_VERSION = '2.2'; export function answerTcf() {}"),
    ]);
    const gzip = (source: string) => gzipSync(source, { level: 9 }).length;
    const brotli = (source: string) => compress('br', source).length;
    const tcfGzip = gzip(tcf);
    console.log(
      `sdk.js: ${sdk.length} bytes, ${gzip(sdk)} gzipped, ${brotli(sdk)} brotli (${gzip(withoutTcf)} gzipped without the TCF loader, ${brotli(withoutAnswers)} brotli without the CMP outside tcf.js); tcf.js: ${tcf.length} bytes, ${tcfGzip} gzipped`,
    );
    expect(gzip(withoutAnswers) - gzip(withoutTcf)).toBeGreaterThan(0);
    expect(gzip(withoutAnswers) - gzip(withoutTcf)).toBeLessThanOrEqual(TCF_SDK_GROWTH_LIMIT);
    expect(brotli(sdk) - brotli(withoutAnswers)).toBeGreaterThan(0);
    expect(brotli(sdk) - brotli(withoutAnswers)).toBeLessThanOrEqual(TCF_ANSWERS_BROTLI_LIMIT);
    for (const name of ['vendorsDisclosed', 'getVendorList', 'tcfapiLocator'])
      expect(sdk).not.toContain(name);
    expect(tcf.startsWith('"use strict";(()=>{')).toBe(true);
    expect(tcf).not.toMatch(/\bimport\s*\(|\brequire\(/);
    expect(tcf).not.toMatch(/https?:\/\//);
    expect(tcf).toContain('__consentServiceTcf');
    expect(tcfGzip).toBeLessThanOrEqual(MAX_TCF_GZIP_BYTES);
  });
});

describe.skipIf(skipWith(browserSkipReason))('TCF CMP API', () => {
  const f = tcfFixture();
  const get = (siteKey: string, part: string, headers: Record<string, string> = {}) =>
    f.t.http.get(`/v1/public/sites/${siteKey}/${part}`, { headers });

  it('tcf.js is JavaScript, cacheable, with an ETag (304), built from sdk/src/tcf; unknown sites 404', async () => {
    const site = await f.tcfSite();
    const res = await get(site.siteKey, 'tcf.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(res.text).toContain('__consentServiceTcf');
    expect(() => new Function(res.text)).not.toThrow();
    const etag = res.headers.get('etag') as string;
    expect((await get(site.siteKey, 'tcf.js', { 'if-none-match': etag })).status).toBe(304);
    expectProblemShape(await get('site_test_doesNotExist000000000000', 'tcf.js'), 404, 'not_found');
  });

  it('the snippet: a TCF channel gets IAB’s stub (with the __tcfapiLocator frame) before sdk.js; without tcf it is unchanged', async () => {
    const site = await f.tcfSite(null);
    const plain = (await get(site.siteKey, 'snippet')).body.data.html;
    expect(plain).toMatch(/^<script src="[^"]+\/sdk\.js" data-site-key="site_test_\w+" async><\/script>$/);
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
      key: f.key,
      body: { tcf: TCF_SETTINGS },
    });
    expect(res.status, res.text).toBe(200);
    const [stub, tag] = (await get(site.siteKey, 'snippet')).body.data.html.split('\n');
    expect(tag).toBe(plain);
    // IAB's stub, run with no `module` in scope, then its ping given the API version.
    expect(stub).toMatch(
      /^<script>\(function\(w\)\{.*\(function\(module\)\{"use strict";.*\}\)\(\);.*\}\)\(window\);<\/script>$/,
    );
    expect(stub).toContain("p.apiVersion='2.2'");
    expect(stub).toContain('__tcfapiLocator');
    expect(stub).toContain('setGdprApplies');
  });

  it('first visit: the stub queues the vendor’s calls, the CMP answers them, ping and cmpuishown, then useractioncomplete after "Accept all"', async () => {
    const site = await f.tcfSite();
    const { context, page, urls, posts, tcfJs } = await f.visit(site, 'FR');
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();
    expect(urls.filter((u) => u === tcfJs)).toHaveLength(1);
    // Before the SDK: the stub answered ping as a stub.
    expect(await page.evaluate('window.stubPing')).toMatchObject({ cmpStatus: 'stub', cmpLoaded: false });
    // The CMP took over: the listener queued with the stub heard the layers shown.
    // (What its string holds: tcf-validator.test.ts.)
    const shown = await heard(page, 'cmpuishown');
    expect(shown).toMatchObject({ ok: true, cmpStatus: 'loaded' });
    expect(decodeTc(shown.tcString).vendorConsents).toEqual([]);
    expect(await page.evaluate('window.queuedTcData')).toMatchObject({ ok: true, eventStatus: 'cmpuishown' });
    const ping = (await tcfapi(page, 'ping')).value;
    expect(ping).toMatchObject({
      cmpLoaded: true,
      cmpStatus: 'loaded',
      displayStatus: 'visible',
      apiVersion: '2.2',
      cmpId: CMP_ID,
      cmpVersion: CMP_VERSION,
      gdprApplies: true,
      gvlVersion: 100,
      tcfPolicyVersion: 5,
    });
    // getVendorList: the channel's slice, from the library, while the layers are up.
    const list = await tcfapi(page, 'getVendorList');
    expect(list.ok).toBe(true);
    expect(list.value.vendorListVersion).toBe(100);
    expect(
      Object.keys(list.value.vendors)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(VENDOR_IDS);

    await page.click(`${LAYERS} ${action('accept-all')}`);
    const done = await heard(page, 'useractioncomplete');
    expect(done.ok).toBe(true);
    expect(done.tcString).toMatch(/^[\w-]+(\.[\w-]+)+$/);
    expect(await page.locator(BANNER).count()).toBe(0);
    expect((await tcfapi(page, 'ping')).value).toMatchObject({
      displayStatus: 'hidden',
      cmpStatus: 'loaded',
    });
    const data = await tcfapi(page, 'getTCData');
    expect(data.value).toMatchObject({
      tcString: done.tcString,
      eventStatus: 'useractioncomplete',
      gdprApplies: true,
    });
    expect(decodeTc(done.tcString).vendorsDisclosed).toEqual(VENDOR_IDS);

    // The decision posted carries the string; the evidence keeps the browser's string as it was.
    const [event] = await f.recorded(context, site, 1);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ source: 'banner', tcString: done.tcString });
    expect(event).toMatchObject({ tcString: done.tcString, regime: 'opt-in', region: 'FR' });
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });

    // A returning visitor (the same browser, a new page): no layers, `tcloaded` with the same string.
    const again = await f.visit(site, 'FR', { context });
    const loaded = await heard(again.page, 'tcloaded');
    expect(loaded).toMatchObject({ ok: true, tcString: done.tcString });
    expect(await again.page.evaluate('window.queuedTcData')).toMatchObject({ tcString: done.tcString });
    expect(await again.page.locator(BANNER).count()).toBe(0);
    expect(await again.page.evaluate('window.ConsentService.getDecisions()')).toMatchObject({
      analytics: 'granted',
    });
    expect((await tcfapi(again.page, 'ping')).value).toMatchObject({ cmpStatus: 'loaded', gvlVersion: 100 });
    // Nothing was asked or recorded again.
    await f.recorded(context, site, 1);
    await context.close();
  });

  it('a vendor’s frame on another origin reaches the API through __tcfapiLocator by postMessage', async () => {
    const site = await f.tcfSite();
    const { context, page } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    expect(await page.locator('iframe[name="__tcfapiLocator"]').count()).toBe(1);
    const frame = f.vendorFrame(page);
    expect(new URL(frame.url()).origin).not.toBe(new URL(page.url()).origin);
    const ping = await frame.evaluate("callTcf('ping')");
    expect(ping).toMatchObject({
      success: true,
      returnValue: { cmpId: CMP_ID, cmpStatus: 'loaded', gdprApplies: true },
    });
    await page.click(`${LAYERS} ${action('reject-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    const data: any = await frame.evaluate("callTcf('getTCData')");
    expect(data.success).toBe(true);
    expect(data.returnValue).toMatchObject({ tcString, eventStatus: 'useractioncomplete' });
    await context.close();
  });

  it('a page whose snippet predates tcf (no stub): tcf.js installs IAB’s stub, so frames still find __tcfapiLocator', async () => {
    const site = await f.tcfSite();
    const { context, page, urls, tcfJs } = await f.visit(site, 'FR', { bare: true });
    await page.locator(LAYERS).waitFor();
    expect(urls).toContain(tcfJs);
    expect(await page.locator('iframe[name="__tcfapiLocator"]').count()).toBe(1);
    const ping = await f.vendorFrame(page).evaluate("callTcf('ping')");
    expect(ping).toMatchObject({
      success: true,
      returnValue: { cmpId: CMP_ID, cmpStatus: 'loaded', displayStatus: 'visible' },
    });
    await context.close();
  });

  it('tcf.js unavailable: nothing is asked or recorded without a TC string, the CMP answers ping alone, and the next page view asks in the layers', async () => {
    const site = await f.tcfSite();
    const context = await f.browser.newContext({ locale: 'en-US' });
    let blocked = true;
    await context.route(
      (url) => url.pathname.endsWith('/tcf.js'),
      (route) => (blocked ? route.abort() : route.continue()),
    );
    const { page, urls, posts, tcfJs } = await f.visit(site, 'FR', { context });
    // The positive signal: the CMP API has said it is in error (tcf-loader.ts gave up on tcf.js).
    await page.waitForFunction(
      "(() => { let status; __tcfapi('ping', 2, (p) => { status = p.cmpStatus; }); return status === 'error'; })()",
    );
    expect(urls).toContain(tcfJs);
    expect(await page.locator(`${BANNER}, ${LAYERS}`).count()).toBe(0);
    // What is on screen is what the CMP says: nothing shown.
    expect((await tcfapi(page, 'ping')).value).toMatchObject({
      cmpStatus: 'error',
      cmpId: CMP_ID,
      displayStatus: 'disabled',
    });
    // Every call but ping is refused, as the CMP API asks of a CMP in error.
    for (const command of ['getTCData', 'addEventListener'])
      expect((await tcfapi(page, command)).ok).toBe(false);
    // The page's own buttons cannot record a TC-less decision either.
    await page.evaluate('window.ConsentService.acceptAll()');
    expect(await page.evaluate('window.ConsentService.getDecisions()')).toBeNull();
    expect(posts).toEqual([]);

    blocked = false;
    await page.reload();
    await page.locator(LAYERS).waitFor();
    await context.close();
  });

  it('with a gppCmpId too, __gpp carries the EU TCF section (tcfeuv2) made from the same TC string', async () => {
    const site = await f.tcfSite();
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
      key: f.key,
      body: { gppCmpId: CMP_ID },
    });
    expect(res.status, res.text).toBe(200);
    const { context, page, urls } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    expect(urls.filter((u) => u.includes('/gpp.js?v='))).toHaveLength(1);
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(page, 'useractioncomplete');
    const ready =
      "(() => { let ok = false; __gpp('ping', (p) => { ok = p.signalStatus === 'ready'; }); return ok; })()";
    await page.waitForFunction(ready);
    const ping: Record<string, any> = await page.evaluate("new Promise((resolve) => __gpp('ping', resolve))");
    expect(ping).toMatchObject({ cmpId: CMP_ID, cmpStatus: 'loaded', applicableSections: [2] });
    // Read by the two IAB libraries: the GPP section holds what the TC string holds.
    const gppModel = new GppModel(ping.gppString);
    expect(gppModel.getHeader().SectionIds).toEqual([2]);
    const tc = decodeTc(tcString);
    expect(gppModel.getFieldValue('tcfeuv2', 'VendorConsents')).toEqual(tc.vendorConsents);
    expect(gppModel.getFieldValue('tcfeuv2', 'VendorsDisclosed')).toEqual(VENDOR_IDS);
    expect(gppModel.getFieldValue('tcfeuv2', 'CmpId')).toBe(CMP_ID);
    await context.close();
  });

  it('outside opt-in regions and on channels without tcf: no tcf.js; the CMP says GDPR does not apply', async () => {
    const site = await f.tcfSite();
    const body = { regionRules: US_OPT_OUT };
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, { key: f.key, body });
    expect(res.status, res.text).toBe(200);
    const us = await f.visit(site, 'US-CA');
    await us.page.waitForFunction('window.ConsentService && window.ConsentService.getDecisions() !== null');
    expect(us.urls).not.toContain(us.tcfJs);
    expect((await tcfapi(us.page, 'ping')).value).toMatchObject({
      gdprApplies: false,
      cmpLoaded: true,
      cmpStatus: 'loaded',
      cmpId: CMP_ID,
    });
    await us.context.close();

    // A channel that is no TCF CMP: the plain snippet, the SDK's banner, tcf.js never requested.
    const plain = await f.tcfSite(null);
    const visit = await f.visit(plain, 'FR');
    await visit.page.locator(BANNER).waitFor();
    expect(await visit.page.locator(LAYERS).count()).toBe(0);
    await visit.page.click(action('accept-all'));
    await f.recorded(visit.context, plain, 1);
    expect(visit.urls.filter((u) => u.includes('/tcf.js') || u.includes('/tcf/'))).toEqual([]);
    expect(visit.posts[0]).not.toHaveProperty('tcString');
    expect(await visit.page.evaluate('typeof window.__tcfapi')).toBe('undefined');
    await visit.context.close();
  });

  // Last in the file: it publishes a newer vendor list, which every channel of this app adopts.
  it('a newer vendor list with the same declarations asks nobody again: the kept choice is loaded, re-encoded against version 101', async () => {
    const site = await f.tcfSite();
    const first = await f.visit(site, 'FR');
    await first.page.locator(LAYERS).waitFor();
    await first.page.click(`${LAYERS} ${action('accept-all')}`);
    const { tcString } = await heard(first.page, 'useractioncomplete');
    await f.recorded(first.context, site, 1);

    f.gvl.publish(buildVendorList({ version: 101 }));
    await refreshVendorList(f.t);
    const config = async () =>
      (await f.t.http.get(`/v1/public/sites/${site.siteKey}/config?region=FR`)).body.data;
    await expect.poll(async () => (await config()).tcf.vendorListVersion, { timeout: 10_000 }).toBe(101);
    expect((await config()).configVersion).toBeGreaterThan(site.configVersion);

    // The returning visitor's cookie and storage, not the config their browser cached for a minute.
    const storageState = await first.context.storageState();
    const again = await f.visit(site, 'FR', {
      context: await f.browser.newContext({ locale: 'en-US', storageState }),
    });
    const loaded = await heard(again.page, 'tcloaded');
    expect(loaded.ok).toBe(true);
    const [before, after] = [decodeTc(tcString), decodeTc(loaded.tcString)];
    expect(after.model.vendorListVersion).toBe(101);
    expect(after.vendorConsents).toEqual(before.vendorConsents);
    expect(after.purposeConsents).toEqual(before.purposeConsents);
    expect(after.vendorsDisclosed).toEqual(before.vendorsDisclosed);
    expect(await again.page.locator(BANNER).count()).toBe(0);
    expect((await tcfapi(again.page, 'ping')).value).toMatchObject({
      gvlVersion: 101,
      displayStatus: 'disabled',
    });
    await f.recorded(first.context, site, 1);
    await first.context.close();
    await again.context.close();
  });
});
