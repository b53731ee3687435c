import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_VENDORS } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { action } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { US_OPT_OUT } from './regions-helpers.ts';
import {
  CMP_ID,
  CMP_VERSION,
  decodeTc,
  heard,
  LAYERS,
  tcfapi,
  tcfFixture,
  VENDOR_IDS,
} from './tcf-helpers.ts';

/**
 * docs/guides/tcf.md, "What IAB Europe's CMP Validator checks": the checks a CMP validator
 * runs against a page, scripted in Chromium on the customer's page as the service hands out its
 * snippet: `ping` before and after the CMP loads, in and out of the TCF's scope; the listener's
 * events in order, each with its TC string read by IAB's own decoder; the `__tcfapiLocator` frame
 * from a cross-origin iframe; `getVendorList` for a known and an unknown version.
 */

/** The CMP API version the stub and both CMPs report in `ping`. */
const API_VERSION = '2.2';
/** Long enough for any answer here (they come within milliseconds); a call never answered says so. */
const NO_ANSWER_MS = 4000;

/** `__tcfapi` on the page, or 'no answer' when the callback is not called in time. */
const within = (page: Page, command: string, parameter?: unknown): Promise<any> =>
  page.evaluate(
    `Promise.race([
      new Promise((resolve) => __tcfapi(${JSON.stringify(command)}, 2, (value, ok) => resolve({ value, ok }), ${
        parameter === undefined ? 'undefined' : JSON.stringify(parameter)
      })),
      new Promise((resolve) => setTimeout(() => resolve('no answer'), ${NO_ANSWER_MS})),
    ])`,
  );

/** The vendor's frame calling through `__tcfapiLocator` by postMessage, or 'no answer' in time. */
const fromFrame = (frame: Frame, command: string, parameter?: unknown): Promise<any> =>
  frame.evaluate(
    `Promise.race([
      callTcf(${JSON.stringify(command)}${parameter === undefined ? '' : `, ${JSON.stringify(parameter)}`}),
      new Promise((resolve) => setTimeout(() => resolve('no answer'), ${NO_ANSWER_MS})),
    ])`,
  );

const events = (page: Page): Promise<Array<Record<string, any>>> => page.evaluate('window.tcfEvents');

/** What `cmpuishown` must carry: every legitimate interest the surfaced vendors may claim, no consent. */
const CONSENT_ONLY = [1, 3, 4, 5, 6];
const liOf = (v: (typeof TEST_VENDORS)[number]) =>
  (v.legIntPurposes ?? []).filter((id) => !CONSENT_ONLY.includes(id));
const LI_VENDORS = TEST_VENDORS.filter((v) => liOf(v).length > 0).map((v) => v.id);
const LI_PURPOSES = [...new Set(TEST_VENDORS.flatMap(liOf))].sort((a, b) => a - b);

describe.skipIf(skipWith(browserSkipReason))('a CMP validator’s checks of the CMP API', () => {
  const f = tcfFixture();

  it('in scope: the stub’s ping, cmpuishown with a string, ping, getVendorList, useractioncomplete, then tcloaded for the returning visitor', async () => {
    const site = await f.tcfSite();
    const { context, page, posts } = await f.visit(site, 'FR');
    await page.locator(`${LAYERS}[data-consent-view="banner"]`).waitFor();

    // The stub answered the tag's ping before any CMP: not loaded, with the API version (item 11).
    expect(await page.evaluate('window.stubPing')).toEqual({
      gdprApplies: undefined,
      cmpLoaded: false,
      cmpStatus: 'stub',
      apiVersion: API_VERSION,
    });

    // cmpuishown carries the transparency string: legitimate interests on, consents off (item 2).
    const shown = await heard(page, 'cmpuishown');
    expect(shown).toMatchObject({ ok: true, cmpStatus: 'loaded', gdprApplies: true, cmpId: CMP_ID });
    const transparency = decodeTc(shown.tcString);
    expect(transparency.model).toMatchObject({
      cmpId: CMP_ID,
      cmpVersion: CMP_VERSION,
      vendorListVersion: 100,
      isServiceSpecific: true,
      publisherCountryCode: 'DE',
    });
    expect(Number(transparency.model.policyVersion)).toBe(5);
    expect(transparency.vendorsDisclosed).toEqual(VENDOR_IDS);
    expect(transparency.vendorLegitimateInterests).toEqual(LI_VENDORS);
    expect(transparency.purposeLegitimateInterests).toEqual(LI_PURPOSES);
    expect(transparency.purposeConsents).toEqual([]);
    expect(transparency.vendorConsents).toEqual([]);
    expect(transparency.specialFeatureOptins).toEqual([]);
    // The tag's queued getTCData got the same state.
    expect(await page.evaluate('window.queuedTcData')).toMatchObject({
      ok: true,
      eventStatus: 'cmpuishown',
      tcString: shown.tcString,
    });

    expect((await tcfapi(page, 'ping')).value).toEqual({
      gdprApplies: true,
      cmpLoaded: true,
      cmpStatus: 'loaded',
      displayStatus: 'visible',
      apiVersion: API_VERSION,
      cmpId: CMP_ID,
      cmpVersion: CMP_VERSION,
      gvlVersion: 100,
      tcfPolicyVersion: 5,
    });

    // getVendorList: the version of the string, that version by number, LATEST; an unknown or
    // invalid version is success false with null, never a silence (item 11).
    const vendorsOf = (answer: any) =>
      Object.keys(answer.value.vendors)
        .map(Number)
        .sort((a, b) => a - b);
    for (const parameter of [undefined, 100, '100', 'LATEST']) {
      const list = await within(page, 'getVendorList', parameter);
      expect(list, String(parameter)).not.toBe('no answer');
      expect(list.ok, String(parameter)).toBe(true);
      expect(list.value.vendorListVersion).toBe(100);
      expect(vendorsOf(list)).toEqual(VENDOR_IDS);
    }
    for (const parameter of [99999, 1, 'abc', -3]) {
      expect(await within(page, 'getVendorList', parameter), String(parameter)).toEqual({
        value: null,
        ok: false,
      });
    }

    // "Accept all" on the first layer: useractioncomplete, made on screen 1 (item 11).
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const done = await heard(page, 'useractioncomplete');
    const statuses = (await events(page)).map((e) => e.status);
    expect(statuses).toEqual(['cmpuishown', 'useractioncomplete']);
    expect(new Set((await events(page)).map((e) => e.id)).size).toBe(1);
    const accepted = decodeTc(done.tcString);
    expect(accepted.vendorConsents).toEqual(VENDOR_IDS);
    expect(accepted.vendorsDisclosed).toEqual(VENDOR_IDS);
    expect(accepted.model.consentScreen).toBe(1);
    expect(accepted.model.cmpVersion).toBe(CMP_VERSION);
    await expect.poll(() => posts.length).toBe(1);
    expect(posts[0].tcString).toBe(done.tcString);

    // The listener goes away on request; an unknown id is false.
    const listenerId = shown.id;
    expect((await tcfapi(page, 'removeEventListener', listenerId)).value).toBe(true);
    expect((await tcfapi(page, 'removeEventListener', listenerId)).value).toBe(false);

    // The returning visitor: tcloaded only, with the string of the choice.
    const again = await f.visit(site, 'FR', { context });
    const loaded = await heard(again.page, 'tcloaded');
    expect((await events(again.page)).map((e) => e.status)).toEqual(['tcloaded']);
    expect(decodeTc(loaded.tcString).vendorConsents).toEqual(accepted.vendorConsents);
    expect((await tcfapi(again.page, 'ping')).value).toMatchObject({
      cmpStatus: 'loaded',
      displayStatus: 'disabled',
      gvlVersion: 100,
    });
    await context.close();
  });

  it('in scope, from a cross-origin iframe: ping, getTCData and getVendorList through __tcfapiLocator', async () => {
    const site = await f.tcfSite();
    const { context, page } = await f.visit(site, 'FR');
    await page.locator(LAYERS).waitFor();
    const frame = f.vendorFrame(page);
    expect(await fromFrame(frame, 'ping')).toMatchObject({
      success: true,
      returnValue: { cmpId: CMP_ID, cmpStatus: 'loaded', gdprApplies: true, apiVersion: API_VERSION },
    });
    const shown = await fromFrame(frame, 'getTCData');
    expect(shown.success).toBe(true);
    expect(shown.returnValue.eventStatus).toBe('cmpuishown');
    expect(decodeTc(shown.returnValue.tcString).vendorsDisclosed).toEqual(VENDOR_IDS);
    const list = await fromFrame(frame, 'getVendorList', 100);
    expect(list).toMatchObject({ success: true, returnValue: { vendorListVersion: 100 } });
    expect(await fromFrame(frame, 'getVendorList', 99999)).toMatchObject({
      success: false,
      returnValue: null,
    });

    // A frame's listener hears every event, not only the first answer.
    await frame.evaluate(`(() => {
      window.frameEvents = [];
      window.addEventListener('message', (e) => {
        const d = typeof e.data === 'string' ? JSON.parse(e.data) : e.data;
        const r = d && d.__tcfapiReturn;
        if (r && r.callId === 'listen') frameEvents.push({ status: r.returnValue.eventStatus, tcString: r.returnValue.tcString });
      });
      window.parent.postMessage({ __tcfapiCall: { command: 'addEventListener', version: 2, callId: 'listen' } }, '*');
    })()`);
    await frame.waitForFunction('window.frameEvents.length === 1', undefined, { timeout: NO_ANSWER_MS });
    await page.click(`${LAYERS} ${action('accept-all')}`);
    const done = await heard(page, 'useractioncomplete');
    await frame.waitForFunction('window.frameEvents.length === 2', undefined, { timeout: NO_ANSWER_MS });
    expect(await frame.evaluate('window.frameEvents')).toEqual([
      { status: 'cmpuishown', tcString: shown.returnValue.tcString },
      { status: 'useractioncomplete', tcString: done.tcString },
    ]);
    await context.close();
  });

  it('"Save" on the second layer: useractioncomplete made on screen 2', async () => {
    const site = await f.tcfSite();
    const { context, page } = await f.visit(site, 'FR');
    await page.click(`${LAYERS} ${action('customize')}`);
    await page.locator(`${LAYERS}[data-consent-view="customize"]`).waitFor();
    await page.click(`${LAYERS} ${action('save')}`);
    const done = await heard(page, 'useractioncomplete');
    const saved = decodeTc(done.tcString);
    expect(saved.model.consentScreen).toBe(2);
    expect(saved.vendorConsents).toEqual([]);
    expect(saved.vendorsDisclosed).toEqual(VENDOR_IDS);
    await context.close();
  });

  it('out of scope: no tcf.js, and the CMP answers ping, the queued calls, listeners and frames with gdprApplies false', async () => {
    const site = await f.tcfSite();
    const res = await f.t.http.patch(`/v1/channels/${site.channelId}`, {
      key: f.key,
      body: { regionRules: US_OPT_OUT },
    });
    expect(res.status, res.text).toBe(200);
    const { context, page, urls, tcfJs } = await f.visit(site, 'US-CA');
    await page.waitForFunction('window.ConsentService && window.ConsentService.getDecisions() !== null');
    // The tag's listener and getTCData, queued with the stub before the SDK ran, were answered.
    await page.waitForFunction('window.tcfEvents.length > 0 && window.queuedTcData !== null', undefined, {
      timeout: NO_ANSWER_MS,
    });
    expect(urls).not.toContain(tcfJs);
    expect(urls.filter((u) => u.includes('/tcf/'))).toEqual([]);
    expect(await events(page)).toEqual([
      {
        status: 'tcloaded',
        cmpStatus: 'loaded',
        ok: true,
        id: expect.any(Number),
        gdprApplies: false,
        cmpId: CMP_ID,
      },
    ]);
    expect(await page.evaluate('window.queuedTcData')).toEqual({
      ok: true,
      eventStatus: 'tcloaded',
      gdprApplies: false,
      cmpStatus: 'loaded',
    });

    const identity = { gdprApplies: false, cmpId: CMP_ID, cmpVersion: CMP_VERSION, tcfPolicyVersion: 5 };
    expect((await within(page, 'ping')).value).toEqual({
      ...identity,
      cmpLoaded: true,
      cmpStatus: 'loaded',
      displayStatus: 'disabled',
      apiVersion: API_VERSION,
    });
    const listener = await within(page, 'addEventListener');
    expect(listener).toEqual({
      ok: true,
      value: { ...identity, eventStatus: 'tcloaded', cmpStatus: 'loaded', listenerId: expect.any(Number) },
    });
    expect((await within(page, 'removeEventListener', listener.value.listenerId)).value).toBe(true);
    expect((await within(page, 'removeEventListener', listener.value.listenerId)).value).toBe(false);
    expect((await within(page, 'getTCData')).value).not.toHaveProperty('tcString');
    // An unsupported version or command is refused, never left waiting.
    expect(
      await page.evaluate(
        "new Promise((resolve) => __tcfapi('getTCData', 1, (value, ok) => resolve({ value, ok })))",
      ),
    ).toEqual({ value: null, ok: false });
    expect(await within(page, 'getVendorList')).toEqual({ value: null, ok: false });

    const frame = f.vendorFrame(page);
    expect(await fromFrame(frame, 'ping')).toMatchObject({
      success: true,
      returnValue: { ...identity, cmpLoaded: true, cmpStatus: 'loaded' },
    });
    expect(await fromFrame(frame, 'getTCData')).toMatchObject({
      success: true,
      returnValue: { ...identity, eventStatus: 'tcloaded' },
    });
    expect(await fromFrame(frame, 'addEventListener')).toMatchObject({
      success: true,
      returnValue: { ...identity, eventStatus: 'tcloaded', listenerId: expect.any(Number) },
    });
    await context.close();
  });

  it('tcf.js cannot be had: ping says cmpStatus "error", and every other call is answered with success false', async () => {
    const site = await f.tcfSite();
    const context = await f.browser.newContext({ locale: 'en-US' });
    await context.route(
      (url) => url.pathname.endsWith('/tcf.js'),
      (route) => route.abort(),
    );
    const { page } = await f.visit(site, 'FR', { context });
    await page.waitForFunction('window.tcfEvents.length > 0', undefined, { timeout: 15_000 });
    const identity = { gdprApplies: true, cmpId: CMP_ID, cmpVersion: CMP_VERSION, tcfPolicyVersion: 5 };
    expect((await within(page, 'ping')).value).toMatchObject({ ...identity, cmpStatus: 'error' });
    expect(await events(page)).toEqual([
      expect.objectContaining({ ok: false, cmpStatus: 'error', gdprApplies: true, cmpId: CMP_ID }),
    ]);
    expect(await within(page, 'getTCData')).toEqual({
      ok: false,
      value: { ...identity, cmpStatus: 'error' },
    });
    expect(await fromFrame(f.vendorFrame(page), 'ping')).toMatchObject({
      success: true,
      returnValue: { cmpStatus: 'error' },
    });
    await context.close();
  });
});
