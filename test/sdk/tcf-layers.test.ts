import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVendorList } from '../helpers/gvl.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason, launchChromium, type PageServer, startPageServer } from './harness.ts';
import { buildLayersBundle, type LayersHarness, layersHarness } from './tcf-layers-helpers.ts';

/**
 * The two TCF layers (sdk/src/tcf/layers) in Chromium, drawn from the tests' vendor list through
 * IAB's GVL class: what each layer discloses, how every toggle lands in the reported choice,
 * equal calls to action, keyboard use, axe-core, and the first layer's effect on the page's LCP and
 * layout. The TC string made from the choice is tcf.js's, tested through the SDK.
 */

const LAYERS = '[data-consent-tcf]';
const act = (name: string) => `${LAYERS} [data-consent-action="${name}"]`;
const ids = (page: Page, selector: string, attr: string) =>
  page.$$eval(selector, (els, a) => els.map((el) => Number(el.getAttribute(a as string))), attr);

// What the tests' five vendors declare (test/helpers/gvl.ts), worked out by hand.
const CONSENT_PURPOSES = [1, 2, 3, 4, 5, 6, 7];
const LI_PURPOSES = [2, 7, 8, 9, 10, 11]; // vendors also claim none of 1, 3–6
const VENDORS = [1, 2, 8, 21, 32];

describe.skipIf(browserSkipReason !== null)('TCF layers in Chromium', () => {
  let browser: Browser;
  let pages: PageServer;
  let bundle = '';
  let h: LayersHarness;

  beforeAll(async () => {
    const built = await buildLayersBundle();
    bundle = built.code;
    console.log(`TCF layers alone: ${built.layersGzipBytes} bytes gzipped`);
    [browser, pages] = await Promise.all([launchChromium(), startPageServer()]);
    h = layersHarness(
      () => browser,
      () => pages,
      () => bundle,
    );
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  it('first layer: vendor count, stacks and purposes once each, special features, LI, withdrawal; three equal buttons', async () => {
    const page = await h.open();
    const dialog = page.locator(LAYERS);
    expect(await dialog.getAttribute('role')).toBe('dialog');
    expect(await dialog.getAttribute('aria-labelledby')).toBe('cs-tcf-title');
    expect(await dialog.getAttribute('data-consent-view')).toBe('banner');
    expect(await page.evaluate(`document.activeElement === document.querySelector('${LAYERS}')`)).toBe(true);
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain('We work with 5 partners');
    expect(text).toContain('Manage options');
    expect(text).toMatch(/legitimate interest.*right to object/s);
    expect(text).toMatch(/withdraw your consent .* at any time through the "Your Privacy Choices" link/);
    expect(text).toContain('This site also asks for: Site analytics.');

    // Stacks 3 (purposes 2–4) and 1 (both special features); stack 2 would repeat purpose 2.
    const stacks = await ids(page, `${LAYERS} [data-tcf-stack]`, 'data-tcf-stack');
    const purposes = await ids(page, `${LAYERS} [data-tcf-purpose]`, 'data-tcf-purpose');
    expect(stacks).toEqual([3, 1]);
    expect(purposes).toEqual([1, 5, 6, 7, 8, 9, 10, 11]);
    const list = buildVendorList();
    const shown = [...stacks.flatMap((id) => list.stacks[String(id) as '1'].purposes), ...purposes].sort(
      (a, b) => a - b,
    );
    expect(shown).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]); // each purpose exactly once
    expect(text).toContain(list.stacks['1'].name); // the special features, by their stack
    expect(text).toContain(list.purposes['1'].name);

    // Equal weight: one class, one computed look, one size, at desktop and phone widths.
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 800 });
      const looks =
        (await page.evaluate(`Array.from(document.querySelectorAll('${LAYERS} .cs-actions button')).map((el) => {
        const s = getComputedStyle(el), r = el.getBoundingClientRect();
        return { action: el.getAttribute('data-consent-action'), w: Math.round(r.width), h: Math.round(r.height),
          look: [el.className, s.fontSize, s.fontWeight, s.fontFamily, s.color, s.backgroundColor, s.borderTopWidth].join('|') };
      })`)) as Array<{ action: string; look: string; w: number; h: number }>;
      expect(looks.map((l) => l.action)).toEqual(['accept-all', 'reject-all', 'customize']);
      expect(new Set(looks.map((l) => l.look)).size).toBe(1);
      expect(new Set(looks.map((l) => `${l.w}x${l.h}`)).size, JSON.stringify(looks)).toBe(1);
    }
    const violations = await axeViolations(page, LAYERS);
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.context().close();
  });

  it('"Accept all" allows everything disclosed; "Reject all" refuses consent and objects to legitimate interests', async () => {
    const page = await h.open();
    await page.click(act('accept-all'));
    const reject = await h.open();
    await reject.click(act('reject-all'));
    const [[accepted], [rejected]] = await Promise.all([h.choices(page), h.choices(reject)]);
    expect(accepted).toEqual({
      action: 'accept-all',
      choice: {
        purposeConsents: CONSENT_PURPOSES,
        purposeLegitimateInterests: LI_PURPOSES,
        vendorConsents: VENDORS,
        vendorLegitimateInterests: VENDORS,
        specialFeatureOptins: [1, 2],
        decisions: { necessary: 'granted', analytics: 'granted' },
      },
    });
    expect(rejected).toEqual({
      action: 'reject-all',
      choice: {
        purposeConsents: [],
        purposeLegitimateInterests: [],
        vendorConsents: [],
        vendorLegitimateInterests: [],
        specialFeatureOptins: [],
        decisions: { necessary: 'granted', analytics: 'denied' },
      },
    });
    expect(await page.locator(LAYERS).count()).toBe(0); // closed by the page's onChoice
    await Promise.all([page.context().close(), reject.context().close()]);
  });
});
