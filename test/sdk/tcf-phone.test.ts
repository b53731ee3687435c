import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason, launchChromium, type PageServer, startPageServer } from './harness.ts';
import { buildLayersBundle, type LayersHarness, layersHarness } from './tcf-layers-helpers.ts';

/**
 * The TCF first layer on phones (docs/guides/tcf.md, "The Policies' UI rules"): at 320×568, 360×640
 * and 375×667 CSS pixels, everything the policy asks the visitor to see before choosing comes
 * before the buttons in reading order, and no button is drawn over text that is not yet read,
 * at any scroll position of the layer.
 */
const LAYER = '[data-consent-tcf]';
/** What the policy requires on the first layer, each by what marks it in the layer. */
const REQUIRED = {
  'purposes and stacks': '.cs-tcf-names',
  'the number of vendors': '#cs-consent-desc',
  'legitimate interest and the right to object': '[data-tcf-legitimate-interest]',
  'withdrawal, the scope and the privacy policy': '[data-tcf-withdraw]',
};
const PHONES = [
  [320, 568],
  [360, 640],
  [375, 667],
] as const;

/** At each scroll position of the layer, the required texts the buttons are drawn over. */
const coveredWhileScrolling = (page: Page): Promise<string[]> =>
  page.evaluate(`(() => {
    const required = ${JSON.stringify(REQUIRED)};
    const root = document.querySelector('${LAYER}');
    const actions = root.querySelector('.cs-actions');
    const covered = new Set();
    for (let top = 0; ; top += 40) {
      root.scrollTop = top;
      const bar = actions.getBoundingClientRect();
      for (const [what, selector] of Object.entries(required)) {
        for (const el of root.querySelectorAll(selector)) {
          const r = el.getBoundingClientRect();
          if (r.bottom > bar.top && r.top < bar.bottom && bar.top < innerHeight && bar.bottom > 0)
            covered.add(what + ' at scrollTop ' + root.scrollTop);
        }
      }
      if (root.scrollTop + root.clientHeight >= root.scrollHeight - 1) return [...covered];
    }
  })()`);

/** Whether each required element comes before the buttons in the layer's reading (DOM) order. */
const beforeTheButtons = (page: Page): Promise<Record<string, boolean>> =>
  page.evaluate(`(() => {
    const actions = document.querySelector('${LAYER} .cs-actions');
    return Object.fromEntries(Object.entries(${JSON.stringify(REQUIRED)}).map(([what, selector]) => {
      const el = document.querySelector('${LAYER} ' + selector);
      return [what, !!el && !!(el.compareDocumentPosition(actions) & Node.DOCUMENT_POSITION_FOLLOWING)];
    }));
  })()`);

/** Whether the buttons are in view once the layer is scrolled to its end. */
const reachableAtTheEnd = (page: Page): Promise<boolean> =>
  page.evaluate(`(() => {
    const root = document.querySelector('${LAYER}');
    root.scrollTop = root.scrollHeight;
    const bar = root.querySelector('.cs-actions').getBoundingClientRect();
    return bar.top >= 0 && bar.bottom <= innerHeight + 1;
  })()`);

describe.skipIf(skipWith(browserSkipReason))('the TCF first layer on phones', () => {
  let browser: Browser;
  let pages: PageServer;
  let bundle = '';
  let h: LayersHarness;

  beforeAll(async () => {
    bundle = (await buildLayersBundle()).code;
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

  it.each(PHONES)(
    '%d×%d: the required text comes first and no button hides unread text',
    async (width, height) => {
      const page = await h.open({ width });
      await page.setViewportSize({ width, height });
      // Reading order: every required element precedes the buttons.
      expect(await beforeTheButtons(page)).toEqual(
        Object.fromEntries(Object.keys(REQUIRED).map((k) => [k, true])),
      );
      expect(await coveredWhileScrolling(page)).toEqual([]);
      // The buttons are still reachable: at the layer's end, in view once it is scrolled there.
      expect(await reachableAtTheEnd(page)).toBe(true);
      await page.context().close();
    },
  );
});
