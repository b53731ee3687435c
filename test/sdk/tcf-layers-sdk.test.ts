import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason } from './harness.ts';
import { decodeTc, LAYERS, tcfFixture } from './tcf-helpers.ts';
import { heroPage, measurePaint } from './tcf-layers-helpers.ts';

/**
 * The TCF layers end to end: the service's snippet on a publisher's article page, the real sdk.js
 * and tcf.js, the channel's vendor list slice from the service. axe-core on both layers, the first
 * layer's effect on LCP and layout as visitors get it, and the string the layers' defaults make.
 */
describe.skipIf(skipWith(browserSkipReason))('TCF layers through the real SDK', () => {
  const f = tcfFixture();

  it('axe finds nothing on either layer; LCP stays the article’s, CLS 0; saving the defaults consents to nothing', async () => {
    const site = await f.tcfSite();
    const snippet: string = (await f.t.http.get(`/v1/public/sites/${site.siteKey}/snippet`)).body.data.html;
    const tagged = snippet
      .replace(/src="[^"]*\/v1\//, `src="${f.t.baseUrl}/v1/`)
      .replace(' async>', ' data-region="FR" async>');
    const path = `/tcf-layers-sdk-${site.siteKey}.html`;
    f.pages.setPage(path, heroPage('en', tagged));
    const context = await f.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const posts: Array<Record<string, any>> = [];
    context.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/preferences')) posts.push(r.postDataJSON());
    });
    const page = await context.newPage();
    await page.goto(f.pages.origin + path);
    await page.locator(LAYERS).waitFor();
    await page.waitForTimeout(500);

    const paint = await measurePaint(page);
    const final = paint.lcp[paint.lcp.length - 1];
    expect(paint.lcp.filter((e) => e.inLayers)).toEqual([]);
    expect(['hero-title', 'hero-text']).toContain(final.id);
    expect(paint.shifts.reduce((sum, e) => sum + e.value, 0)).toBe(0);
    console.log(
      `TCF first layer through sdk.js: LCP ${final.id} (${final.size} px²), largest layer block ${paint.largestLayerBlock} px², CLS ${paint.shifts.length ? paint.shifts.map((e) => e.value) : 0}`,
    );

    const first = await axeViolations(page, LAYERS);
    expect(first, `first layer:\n${describeViolations(first)}`).toEqual([]);
    await page.click(`${LAYERS} [data-consent-action="customize"]`);
    await page.evaluate(`document.querySelectorAll('${LAYERS} details').forEach((d) => { d.open = true; })`);
    // The service's slice carries what the vendor details need: data categories and retention by name.
    const tradeDesk = (await page.locator(`${LAYERS} [data-tcf-vendor="21"]`).textContent()) ?? '';
    expect(tradeDesk).toContain('Data used: IP addresses; Device characteristics; Device identifiers');
    expect(tradeDesk).toContain('Data kept for: 365 days');
    const second = await axeViolations(page, LAYERS);
    expect(second, `second layer:\n${describeViolations(second)}`).toEqual([]);
    console.log(
      'axe violations (wcag2a, wcag2aa, wcag21aa) on the TCF layers through sdk.js: first 0, second 0',
    );

    // Saving without touching a toggle: no consent, no special feature, legitimate interests stand.
    await page.click(`${LAYERS} [data-consent-action="save"]`);
    await expect.poll(() => posts.length).toBe(1);
    const tc = decodeTc(posts[0].tcString);
    expect(tc.purposeConsents).toEqual([]);
    expect(tc.vendorConsents).toEqual([]);
    expect(tc.specialFeatureOptins).toEqual([]);
    expect(tc.purposeLegitimateInterests).toEqual([2, 7, 8, 9, 10, 11]);
    expect(tc.vendorLegitimateInterests).toEqual([1, 2, 8, 21, 32]);
    expect(tc.vendorsDisclosed).toEqual([1, 2, 8, 21, 32]);
    expect(posts[0].decisions).toMatchObject({
      necessary: 'granted',
      analytics: 'denied',
      marketing: 'denied',
    });
    // Opening "Manage options" grows the fixed layer upwards: a shift of the layer itself, right after
    // the visitor's click, which CLS leaves out (hadRecentInput); the page's content never moves.
    const shifts = (await page.evaluate('window.shifts')) as Array<{ value: number; recent: boolean }>;
    expect(shifts.filter((e) => !e.recent)).toEqual([]);
    await context.close();
  });
});
