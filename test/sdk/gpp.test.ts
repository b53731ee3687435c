import { GppModel } from '@iabgpp/cmpapi';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pieceBundle } from '../../src/modules/sites/sdk-bundle.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, shopPage } from './harness.ts';
import { CHOICES, NOTICE, regionHelpers, settled, US_OPT_OUT } from './regions-helpers.ts';

/**
 * docs/regions.md: the IAB GPP CMP API for US opt-out visitors of a channel
 * with a gppCmpId. The page is the customer's: the snippet exactly as the service hands it out (the
 * stub, then sdk.js), and a vendor's tag that calls `__gpp` before the SDK has loaded. Every GPP
 * string is read back with the IAB's own decoder.
 */
const CMP_ID = 300;
const NOT_OPTED_OUT = { SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2 };
const OPTED_OUT = { SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1 };
const NOTICES = {
  SharingNotice: 1,
  SaleOptOutNotice: 1,
  SharingOptOutNotice: 1,
  TargetedAdvertisingOptOutNotice: 1,
};

/** A vendor's tag, run right after the stub: a listener and a queued call, both before the CMP. */
const VENDOR_TAG = `<script>
window.gppEvents = []; window.queuedAnswer = null;
__gpp('addEventListener', function (e) {
  gppEvents.push({ name: e.eventName, data: e.data, gppString: e.pingData && e.pingData.gppString });
});
__gpp('getGPPData', function (value, success) { window.queuedAnswer = { value: value, success: success }; });
</script>`;

const usnat = (gppString: string) => new GppModel(gppString).getSection('usnat');
const ping = (page: Page): Promise<Record<string, any>> =>
  page.evaluate("new Promise((resolve) => __gpp('ping', resolve))");
/** The CMP has replaced the stub and its string is ready (`ping` answers synchronously). */
const loaded =
  "(() => { let ok = false; __gpp('ping', (p) => { ok = p.cmpStatus === 'loaded' && p.signalStatus === 'ready'; }); return ok; })()";

describe.skipIf(skipWith(browserSkipReason))('GPP CMP API', () => {
  const f = sdkFixture();
  const { siteWithRules, channel } = regionHelpers(f);
  const get = (siteKey: string, part: string, headers: Record<string, string> = {}) =>
    f.t.http.get(`/v1/public/sites/${siteKey}/${part}`, { headers });

  it('gpp.js is JavaScript, cacheable, with an ETag (304), the bundle built from sdk/src/gpp; unknown sites 404', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const res = await get(site.siteKey, 'gpp.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(res.text).toContain('__consentServiceGpp');
    expect(() => new Function(res.text)).not.toThrow();
    const etag = res.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get(site.siteKey, 'gpp.js', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    for (const siteKey of ['site_test_doesNotExist000000000000', 'nope']) {
      expectProblemShape(await get(siteKey, 'gpp.js'), 404, 'not_found');
    }
    const archived = await f.t.http.post(`${channel(site)}/archive`, { key: f.key });
    expect(archived.status).toBe(200);
    expectProblemShape(await get(site.siteKey, 'gpp.js'), 404, 'not_found');
  });

  it('the snippet: unchanged without a gppCmpId; with one, the IAB stub (with the CMP id) before sdk.js', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const sdkTag = (html: string) => html.split('\n').at(-1);
    const plain = (await get(site.siteKey, 'snippet')).body.data.html;
    expect(plain).toMatch(/^<script src="[^"]+\/sdk\.js" data-site-key="site_test_\w+" async><\/script>$/);
    const patched = await f.t.http.patch(channel(site), { key: f.key, body: { gppCmpId: CMP_ID } });
    expect(patched.status, patched.text).toBe(200);
    const html = (await get(site.siteKey, 'snippet')).body.data.html;
    const [stub, tag] = html.split('\n');
    expect(tag).toBe(sdkTag(plain));
    expect(stub).toMatch(/^<script>\(function\(w,d\)\{.*\}\)\(window,document\);<\/script>$/);
    expect(stub).toContain(`cmpId:${CMP_ID}`);
    expect(stub).toContain("'__gppLocator'");
    const cleared = await f.t.http.patch(channel(site), { key: f.key, body: { gppCmpId: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect((await get(site.siteKey, 'snippet')).body.data.html).toBe(plain);
  });

  describe('in Chromium', () => {
    async function gppSite() {
      const site = await siteWithRules(US_OPT_OUT);
      const res = await f.t.http.patch(channel(site), { key: f.key, body: { gppCmpId: CMP_ID } });
      expect(res.status, res.text).toBe(200);
      return { ...site, configVersion: res.body.data.configVersion };
    }

    /**
     * The shop page with the service's snippet in place of a bare SDK tag (its address made this test
     * server's, its SDK tag given the declared region), then the vendor's tag. A fresh context that
     * records every request, with GPC on both ways when asked.
     */
    async function visit(
      site: Awaited<ReturnType<typeof gppSite>>,
      region: string,
      options: { gpc?: boolean; blockGpp?: boolean } = {},
    ) {
      const snippet: string = (await f.t.http.get(`/v1/public/sites/${site.siteKey}/snippet`)).body.data.html;
      const tagged = snippet
        .replace(/src="[^"]*\/v1\//, `src="${f.t.baseUrl}/v1/`)
        .replace(' async>', ` data-region="${region}" async>`);
      const sdkSrc = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`;
      const bare = `<script src="${sdkSrc}" data-site-key="${site.siteKey}" async></script>`;
      const html = shopPage(sdkSrc, site.siteKey, { gtag: true }).replace(bare, `${tagged}\n${VENDOR_TAG}`);
      expect(html).toContain(VENDOR_TAG);
      const path = `/gpp-${site.siteKey}-${region}.html`;
      f.pages.setPage(path, html);
      const context = await f.browser.newContext({
        locale: 'en-US',
        extraHTTPHeaders: options.gpc ? { 'Sec-GPC': '1' } : undefined,
      });
      if (options.gpc) {
        await context.addInitScript(
          "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true });",
        );
      }
      if (options.blockGpp)
        await context.route(
          (url) => url.pathname.endsWith('/gpp.js'),
          (route) => route.abort(),
        );
      const urls: string[] = [];
      context.on('request', (r) => urls.push(`${r.method()} ${r.url().replace(f.t.baseUrl, '')}`));
      // One entry per decision: the SDK sends a decision again, under the same Idempotency-Key, when
      // an answer is lost or a 5xx (a busy CI machine), and the service records it once.
      const posts: Array<Record<string, any>> = [];
      const keys = new Set<string>();
      context.on('request', (r) => {
        if (r.method() !== 'POST' || !r.url().includes('/preferences')) return;
        const key = r.headers()['idempotency-key'];
        if (keys.has(key)) return;
        keys.add(key);
        posts.push(r.postDataJSON());
      });
      const page = await context.newPage();
      await page.goto(f.pages.origin + path);
      return {
        context,
        page,
        urls,
        posts,
        gppJs: `GET /v1/public/sites/${site.siteKey}/gpp.js?v=${pieceBundle('gpp').version}`,
      };
    }

    it('US-CA: __gpp answers as the CMP (section 7, nothing opted out), the vendor queued before load is answered, iframes get answers by postMessage', async () => {
      const site = await gppSite();
      const { context, page, urls, gppJs } = await visit(site, 'US-CA');
      await page.waitForFunction(settled);
      await page.waitForFunction(loaded);
      expect(urls.filter((u) => u === gppJs)).toHaveLength(1);
      const data = await ping(page);
      expect(data).toMatchObject({
        gppVersion: '1.1',
        cmpStatus: 'loaded',
        signalStatus: 'ready',
        cmpId: CMP_ID,
        supportedAPIs: ['7:usnat'],
        applicableSections: [7],
        sectionList: [7],
      });
      expect(new GppModel(data.gppString).getHeader().SectionIds).toEqual([7]);
      expect(usnat(data.gppString)).toMatchObject({
        ...NOTICES,
        ...NOT_OPTED_OUT,
        MspaCoveredTransaction: 2,
        Gpc: false,
      });
      expect(data.parsedSections.usnat).toMatchObject(NOT_OPTED_OUT);

      // The vendor's listener, registered with the stub, was adopted: it heard the CMP get ready.
      const events: Array<Record<string, any>> = await page.evaluate('window.gppEvents');
      expect(events[0]).toMatchObject({ name: 'listenerRegistered', data: true, gppString: '' });
      expect(events.map((e) => `${e.name}:${e.data}`)).toEqual(
        expect.arrayContaining(['cmpStatus:loaded', 'sectionChange:usnat', 'signalStatus:ready']),
      );
      expect(events.at(-1)).toMatchObject({ name: 'signalStatus', data: 'ready', gppString: data.gppString });
      // Its queued call (a command the stub cannot answer; not in GPP 1.1) was answered by the CMP.
      expect(await page.evaluate('window.queuedAnswer')).toEqual({ value: null, success: false });
      const field = await page.evaluate("new Promise((r) => __gpp('getField', r, 'usnat.SaleOptOut'))");
      expect(field).toBe(2);

      // A vendor in an iframe finds the locator frame and asks by postMessage.
      expect(await page.locator('iframe[name="__gppLocator"]').count()).toBe(1);
      const reply = await page.evaluate(`new Promise((resolve) => {
        addEventListener('message', (e) => e.data && e.data.__gppReturn && resolve(e.data.__gppReturn));
        postMessage({ __gppCall: { command: 'ping', callId: 'c1', version: '1.1' } }, '*');
      })`);
      expect(reply).toMatchObject({
        callId: 'c1',
        success: true,
        returnValue: { gppString: data.gppString },
      });
      await context.close();
    });

    it('opting out through the preferences flips the string to 1s, and the decision posted carries it', async () => {
      const site = await gppSite();
      const { context, page, posts } = await visit(site, 'US-CA');
      await page.waitForFunction(loaded);
      const before = (await ping(page)).gppString;
      await page.locator(`${NOTICE} ${CHOICES}`).click();
      await page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
      await page.locator('input[data-consent-purpose="marketing"]').uncheck();
      await page.click(action('save'));
      const [event] = await f.recorded(context, site, 1);
      const after = (await ping(page)).gppString;
      expect(after).not.toBe(before);
      expect(usnat(after)).toMatchObject({ ...NOTICES, ...OPTED_OUT, Gpc: false });
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatchObject({ source: 'preference_center', gppString: after });
      // The service stored the string the browser sent, on the decision's evidence.
      expect(event).toMatchObject({
        source: 'preference_center',
        decisions: { marketing: 'denied' },
        region: 'US-CA',
        regime: 'opt-out',
        gppString: after,
      });
      // Listeners heard the change in the spec's order.
      const events: Array<Record<string, any>> = await page.evaluate('window.gppEvents');
      const tail = events.slice(-3).map((e) => `${e.name}:${e.data}`);
      expect(tail).toEqual(['signalStatus:not ready', 'sectionChange:usnat', 'signalStatus:ready']);
      await context.close();
    });

    it('with GPC (the JS signal and Sec-GPC: 1): Gpc 1 and every opt-out 1, recorded by itself with its string', async () => {
      const site = await gppSite();
      const { context, page } = await visit(site, 'US-CA', { gpc: true });
      await page.waitForFunction(loaded);
      const [event] = await f.recorded(context, site, 1);
      const { gppString } = await ping(page);
      expect(usnat(gppString)).toMatchObject({ ...NOTICES, ...OPTED_OUT, GpcSegmentType: 1, Gpc: true });
      expect(event).toMatchObject({
        source: 'gpc',
        gpc: true,
        decisions: { marketing: 'denied' },
        gppString,
      });
      await context.close();
    });

    it('FR on the same channel: only the stub answers, gpp.js is never requested, decisions carry no string', async () => {
      const site = await gppSite();
      const { context, page, urls, posts, gppJs } = await visit(site, 'FR');
      await page.locator(BANNER).waitFor();
      await page.click(action('accept-all'));
      await f.recorded(context, site, 1);
      const data = await ping(page);
      expect(data).toMatchObject({
        cmpStatus: 'stub',
        signalStatus: 'not ready',
        gppString: '',
        cmpId: CMP_ID,
      });
      expect(urls).not.toContain(gppJs);
      expect(await page.evaluate('typeof window.__consentServiceGpp')).toBe('undefined');
      expect(posts).toHaveLength(1);
      expect(posts[0]).not.toHaveProperty('gppString');
      await context.close();
    });

    it('gpp.js unavailable: the SDK goes on without GPP (the stub stays, the decision carries no string)', async () => {
      const site = await gppSite();
      const { context, page, urls, posts, gppJs } = await visit(site, 'US-CA', { blockGpp: true });
      await page.waitForFunction(settled);
      expect(urls).toContain(gppJs);
      await page.locator(`${NOTICE} ${CHOICES}`).click();
      await page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
      await page.locator('input[data-consent-purpose="marketing"]').uncheck();
      await page.click(action('save'));
      await f.recorded(context, site, 1);
      expect(posts[0]).not.toHaveProperty('gppString');
      expect(await ping(page)).toMatchObject({ cmpStatus: 'stub' });
      await context.close();
    });
  });
});
