import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TcfChoice } from '../../sdk/src/tcf/layers/types.ts';
import { buildVendorList } from '../helpers/gvl.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from './axe.ts';
import { browserSkipReason, launchChromium, type PageServer, startPageServer } from './harness.ts';
import {
  buildLayersBundle,
  CONFIG,
  ILLUSTRATION,
  type LayersHarness,
  layersHarness,
  measurePaint,
} from './tcf-layers-helpers.ts';

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

describe.skipIf(skipWith(browserSkipReason))('TCF layers in Chromium', () => {
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
        consentScreen: 1, // made on the first layer
        acConsents: [], // no Google Additional Consent providers on this channel
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
        consentScreen: 1,
      },
    });
    expect(await page.locator(LAYERS).count()).toBe(0); // closed by the page's onChoice
    await Promise.all([page.context().close(), reject.context().close()]);
  });
  it('Manage options: purposes with consent and objection toggles, information-only items, special features, vendors, own purposes; axe', async () => {
    const page = await h.open();
    await page.click(act('customize'));
    const dialog = page.locator(LAYERS);
    expect(await dialog.getAttribute('data-consent-view')).toBe('customize');
    expect(await dialog.getAttribute('aria-labelledby')).toBe('cs-tcf-manage-title');
    expect(await page.evaluate(`document.activeElement === document.querySelector('${LAYERS}')`)).toBe(true);

    const boxes = async (attr: string) => ({
      ids: await ids(page, `${LAYERS} input[${attr}]`, attr),
      checked: await ids(page, `${LAYERS} input[${attr}]:checked`, attr),
    });
    // Defaults: nothing consented, nothing opted in; legitimate interests stand until objected to.
    expect(await boxes('data-tcf-purpose-consent')).toEqual({ ids: CONSENT_PURPOSES, checked: [] });
    expect(await boxes('data-tcf-purpose-li')).toEqual({ ids: LI_PURPOSES, checked: LI_PURPOSES });
    expect(await boxes('data-tcf-special-feature')).toEqual({ ids: [1, 2], checked: [] });
    expect(await boxes('data-tcf-vendor-consent')).toEqual({ ids: VENDORS, checked: [] });
    expect(await boxes('data-tcf-vendor-li')).toEqual({ ids: VENDORS, checked: VENDORS });
    // Special purposes and features are disclosed with no choice.
    expect(
      await ids(page, `${LAYERS} [data-tcf-special-purpose-item]`, 'data-tcf-special-purpose-item'),
    ).toEqual([1, 2, 3]);
    expect(await ids(page, `${LAYERS} [data-tcf-feature-item]`, 'data-tcf-feature-item')).toEqual([1, 2, 3]);
    expect(
      await page
        .locator(`${LAYERS} [data-tcf-special-purpose-item] input, ${LAYERS} [data-tcf-feature-item] input`)
        .count(),
    ).toBe(0);
    // Sections in the order the policy lists them.
    const headings = await page.$$eval(`${LAYERS} h3`, (els) => els.map((el) => el.id));
    expect(headings).toEqual([
      'cs-tcf-purposes',
      'cs-tcf-specialPurposes',
      'cs-tcf-features',
      'cs-tcf-special-features',
      'cs-tcf-vendors',
      'cs-tcf-own',
    ]);
    // A toggle's accessible name says what it is for.
    const objection = page.getByRole('checkbox', {
      name: 'Use limited data to select advertising Legitimate interest',
    });
    expect(await objection.getAttribute('data-tcf-purpose-li')).toBe('2');
    expect(
      await page
        .getByRole('checkbox', { name: 'The Trade Desk Consent' })
        .getAttribute('data-tcf-vendor-consent'),
    ).toBe('21');

    // A purpose's illustrations, folded under "Examples".
    const purpose2 = page.locator(`${LAYERS} [data-tcf-purpose-item="2"]`);
    await purpose2.locator('summary', { hasText: 'Examples' }).click();
    expect(await purpose2.locator('details li').textContent()).toBe(ILLUSTRATION);

    // Every vendor's details, names from the vendor list.
    const tradeDesk = page.locator(`${LAYERS} [data-tcf-vendor="21"]`);
    await tradeDesk.locator('summary').click();
    const details = (await tradeDesk.textContent()) ?? '';
    expect(details).toContain(
      'Purposes (consent): Store and/or access information on a device; Create profiles for personalised advertising',
    );
    expect(details).toContain(
      'Purposes (legitimate interest): Use limited data to select advertising; Measure advertising performance',
    );
    expect(details).toContain('Special purposes: Ensure security, prevent and detect fraud, and fix errors');
    expect(details).toContain('Features: Match and combine data from other data sources');
    expect(details).toContain('Special features: Use precise geolocation data');
    expect(details).toContain('Data kept for: 365 days');
    expect(details).toContain('Data used: IP addresses; Device characteristics; Device identifiers');
    expect(await tradeDesk.locator('a', { hasText: 'Privacy policy' }).getAttribute('href')).toBe(
      'https://the-trade-desk.example/privacy',
    );
    // The channel's own purposes: the required one locked on.
    expect(await page.locator(`${LAYERS} input[data-consent-purpose="necessary"]`).isChecked()).toBe(true);
    expect(await page.locator(`${LAYERS} input[data-consent-purpose="necessary"]`).isDisabled()).toBe(true);
    expect(await page.locator(`${LAYERS} input[data-consent-purpose="analytics"]`).isChecked()).toBe(false);

    await page.evaluate(`document.querySelectorAll('${LAYERS} details').forEach((d) => { d.open = true; })`);
    const violations = await axeViolations(page, LAYERS);
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.context().close();
  });

  it('a custom choice: each toggle lands in its own field (an objection to legitimate interest, a special feature)', async () => {
    const page = await h.open({ view: 'customize' });
    const click = (attr: string, id: number | string) => page.click(`${LAYERS} input[${attr}="${id}"]`);
    for (const id of [1, 2, 7]) await click('data-tcf-purpose-consent', id);
    await click('data-tcf-purpose-li', 7); // objects to purpose 7's legitimate interest
    for (const id of [2, 21]) await click('data-tcf-vendor-consent', id);
    await click('data-tcf-vendor-li', 8); // objects to vendor 8's legitimate interest
    await click('data-tcf-special-feature', 1);
    await click('data-consent-purpose', 'analytics');
    await page.click(act('save'));
    const custom = {
      purposeConsents: [1, 2, 7],
      purposeLegitimateInterests: [2, 8, 9, 10, 11],
      vendorConsents: [2, 21],
      vendorLegitimateInterests: [1, 2, 21, 32],
      specialFeatureOptins: [1],
      decisions: { necessary: 'granted', analytics: 'granted' },
      consentScreen: 2, // made on the second layer
      acConsents: [], // no Google Additional Consent providers on this channel
    };
    expect(await h.choices(page)).toEqual([{ action: 'save', choice: custom }]);

    // Reopened with that choice, the toggles show it, and saving unchanged gives it back.
    const again = await h.open({ view: 'customize', previous: custom as TcfChoice });
    expect(
      await ids(again, `${LAYERS} input[data-tcf-purpose-li]:not(:checked)`, 'data-tcf-purpose-li'),
    ).toEqual([7]);
    expect(
      await ids(again, `${LAYERS} input[data-tcf-special-feature]:checked`, 'data-tcf-special-feature'),
    ).toEqual([1]);
    await again.click(act('save'));
    expect(await h.choices(again)).toEqual([{ action: 'save', choice: custom }]);
    await Promise.all([page.context().close(), again.context().close()]);
  });

  it('keyboard only: Tab reaches every choice with a visible focus ring; Enter and Space operate them', async () => {
    const page = await h.open();
    const focused = () =>
      page.evaluate(`(() => { const el = document.activeElement; const s = getComputedStyle(el);
        return { action: el.getAttribute('data-consent-action') || el.getAttribute('href'), show: el.getAttribute('data-tcf-show'),
          consent: el.getAttribute('data-tcf-purpose-consent'), outline: s.outlineStyle + ' ' + s.outlineWidth }; })()`) as Promise<
        Record<string, string | null>
      >;
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ show: 'vendors', outline: 'solid 3px' }); // the vendor list link first
    const order: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      const f = await focused();
      expect(f.outline).toBe('solid 3px');
      order.push(f.action);
    }
    expect(order).toEqual(['https://shop.example/privacy', 'accept-all', 'reject-all', 'customize']);
    await page.keyboard.press('Enter');
    expect(await page.locator(LAYERS).getAttribute('data-consent-view')).toBe('customize');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ consent: '1', outline: 'solid 3px' });
    await page.keyboard.press('Space');
    for (let i = 0; i < 200 && (await focused()).action !== 'save'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const [{ choice }] = await h.choices(page);
    expect(choice.purposeConsents).toEqual([1]);

    // The vendor list link opens Manage options at the vendors, focus on their heading.
    const link = await h.open();
    await link.click(`${LAYERS} [data-tcf-show="vendors"]`);
    expect(await link.evaluate('document.activeElement.id')).toBe('cs-tcf-vendors');
    await Promise.all([page.context().close(), link.context().close()]);
  });

  it("in the visitor's language: the vendor list's translations and the SDK's own sentences", async () => {
    const page = await h.open({ language: 'de' });
    const text = (await page.locator(LAYERS).textContent()) ?? '';
    expect(text).toContain('Wir arbeiten mit 5 Partnern');
    expect(text).toContain('[de] Personalised advertising'); // stack 3, from purposes-de.json
    expect(text).toContain('[de] Store and/or access information on a device');
    expect(text).toContain('Website-Statistik');
    expect(await page.locator(act('accept-all')).textContent()).toBe('Alle akzeptieren');
    expect(await page.locator(act('customize')).textContent()).toBe('Optionen verwalten');
    await page.click(act('customize'));
    expect(await page.locator(`${LAYERS} #cs-tcf-p1`).textContent()).toBe(
      '[de] Store and/or access information on a device',
    );
    expect(await page.getAttribute(LAYERS, 'lang')).toBe('de');
    await page.context().close();
  });
  it('the first layer is not the Largest Contentful Paint and shifts no layout (desktop and phone)', async () => {
    const report: Record<string, unknown> = {};
    for (const width of [1280, 375]) {
      const page = await h.open({ width });
      await page.waitForFunction('window.lcp.length > 0');
      await page.waitForTimeout(500); // two more frames' worth for any later, larger candidate
      const measured = await measurePaint(page);
      const final = measured.lcp[measured.lcp.length - 1];
      expect(measured.lcp.filter((e) => e.inLayers)).toEqual([]);
      expect(['hero-title', 'hero-text']).toContain(final.id);
      expect(measured.largestLayerBlock).toBeLessThan(final.size);
      // Closing the layer (a fixed overlay) moves nothing either.
      await page.click(act('accept-all'));
      await page.waitForTimeout(300);
      const shifts = (await page.evaluate('window.shifts')) as Array<{ value: number }>;
      const cls = shifts.reduce((sum, e) => sum + e.value, 0);
      expect(cls).toBe(0);
      report[`${width}px`] = {
        lcpElement: final.id,
        lcpSize: final.size,
        lcpEntries: measured.lcp.length,
        largestLayerBlock: measured.largestLayerBlock,
        cls,
      };
      await page.context().close();
    }
    console.log(`TCF first layer, LCP and CLS: ${JSON.stringify(report)}`);
  });
  it('purposeOneTreatment: purpose 1 is neither disclosed nor asked for', async () => {
    const tcf = {
      cmpId: 341,
      cmpVersion: 1,
      vendorListVersion: 100,
      tcfPolicyVersion: 5,
      gdprApplies: true as const,
      vendorListUrl: '/v1/public/sites/x/tcf/vendor-list.json?version=100',
      publisherCountryCode: 'DE',
      purposeOneTreatment: true,
    };
    const page = await h.open({ config: { ...CONFIG, tcf } });
    expect(await ids(page, `${LAYERS} [data-tcf-purpose]`, 'data-tcf-purpose')).toEqual([
      5, 6, 7, 8, 9, 10, 11,
    ]);
    await page.click(act('customize'));
    expect(await ids(page, `${LAYERS} [data-tcf-purpose-item]`, 'data-tcf-purpose-item')).toEqual([
      2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    expect(await page.locator(`${LAYERS} [data-tcf-vendor="21"]`).textContent()).not.toContain(
      'Store and/or access',
    );
    await page.click(act('accept-all'));
    const [{ choice }] = await h.choices(page);
    expect(choice.purposeConsents).toEqual([2, 3, 4, 5, 6, 7]);
    expect(choice.vendorConsents).toEqual(VENDORS);
    await page.context().close();
  });
});

// store-independent: the TCF layers in Chromium on a static page, no service
