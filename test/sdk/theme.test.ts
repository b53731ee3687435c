import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { type AxeViolation, axeViolations, describeViolations } from './axe.ts';
import { action, BANNER, SHOTS, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite } from './harness.ts';

/** Two axe runs and screenshots per test take seconds each on 2 shared cores. */
const AXE_TEST_TIMEOUT = 60_000;

/** A site's own theme, set on :root as docs/guides/banner-theming.md shows. */
const CUSTOM_THEME = `:root{--consent-bg:#fdf6e3;--consent-fg:#2d2a22;--consent-accent:#7a2e0e;--consent-accent-fg:#fff;
--consent-border:#7a2e0e;--consent-link:#7a2e0e;--consent-focus:#1b5e20;--consent-radius:22px;
--consent-font:Georgia,"Times New Roman",serif;--consent-font-size:16px}`;

/** Computed colours and shapes of the banner and its first (primary) and alternative buttons. */
const look = (page: Page) =>
  page.evaluate(`(() => {
    const s = (sel) => getComputedStyle(document.querySelector(sel));
    const root = s('${BANNER}'), primary = s('${action('accept-all')}'), alt = s('.cs-alt');
    return { bg: root.backgroundColor, fg: root.color, font: root.fontFamily, size: root.fontSize,
      primaryBg: primary.backgroundColor, primaryFg: primary.color, radius: primary.borderTopLeftRadius,
      altBg: alt.backgroundColor, altFg: alt.color };
  })()`) as Promise<Record<string, string>>;

describe.skipIf(skipWith(browserSkipReason))(
  'browser SDK in Chromium: banner theming and accessibility',
  () => {
    const f = sdkFixture();
    const axeCounts: Record<string, number> = {};

    /** axe over the banner in both of its views; every violation is printed when one is found. */
    async function expectAccessible(page: Page, name: string) {
      const results: Record<string, AxeViolation[]> = {};
      await page.locator(BANNER).waitFor();
      results.banner = await axeViolations(page, BANNER);
      await page.screenshot({ path: `${SHOTS}/theme-${name}-banner.png` });
      await page.click(action('customize'));
      await page.locator('input[data-consent-purpose]').first().waitFor();
      results.customize = await axeViolations(page, BANNER);
      await page.screenshot({ path: `${SHOTS}/theme-${name}-customize.png` });
      for (const [view, violations] of Object.entries(results)) {
        axeCounts[`${name} ${view}`] = violations.length;
        expect(violations, `${name} ${view}:\n${describeViolations(violations)}`).toEqual([]);
      }
      console.log(`axe violations (wcag2a, wcag2aa, wcag21aa): ${JSON.stringify(axeCounts)}`);
    }

    it(
      'light by default: AA contrast in both views; focus moves in without a ring, Tab shows one',
      async () => {
        const site = await createSite(f.t, f.key, f.pages.origin);
        const { context, page } = await f.visit(site);
        await page.locator(BANNER).waitFor();
        // Focus is inside the dialog (on the dialog itself), and draws no line across the top.
        const onLoad = await page.evaluate(`(() => { const b = document.querySelector('${BANNER}');
      const s = getComputedStyle(b);
      return { active: document.activeElement === b, outline: s.outlineStyle, shadow: s.boxShadow }; })()`);
        expect(onLoad).toEqual({
          active: true,
          outline: 'none',
          shadow: 'rgba(0, 0, 0, 0.25) 0px -4px 24px 0px',
        });
        await page.screenshot({ path: `${SHOTS}/theme-light-on-load.png` });
        expect(await look(page)).toMatchObject({
          bg: 'rgb(255, 255, 255)',
          fg: 'rgb(26, 26, 26)',
          primaryBg: 'rgb(11, 73, 181)',
          primaryFg: 'rgb(255, 255, 255)',
        });
        // The keyboard's focus ring stays: the first Tab lands on a control with a 3 px outline.
        await page.keyboard.press('Tab');
        const ring = await page.evaluate(`(() => { const a = document.activeElement;
      const s = getComputedStyle(a);
      return { inside: document.querySelector('${BANNER}').contains(a), ring: s.outlineStyle + ' ' + s.outlineWidth }; })()`);
        expect(ring).toEqual({ inside: true, ring: 'solid 3px' });
        await expectAccessible(page, 'light');
        await context.close();
      },
      AXE_TEST_TIMEOUT,
    );

    it(
      'dark under prefers-color-scheme: dark, with AA contrast in both views (and the GPC note)',
      async () => {
        const site = await createSite(f.t, f.key, f.pages.origin);
        const { context, page } = await f.visit(site, { gpc: true });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.locator(BANNER).waitFor();
        expect(await look(page)).toMatchObject({
          bg: 'rgb(30, 31, 34)',
          fg: 'rgb(241, 241, 241)',
          primaryBg: 'rgb(156, 193, 255)',
          primaryFg: 'rgb(16, 20, 26)',
          altBg: 'rgb(30, 31, 34)',
        });
        expect(await page.locator('.cs-note').count()).toBe(1);
        await expectAccessible(page, 'dark');
        await context.close();
      },
      AXE_TEST_TIMEOUT,
    );

    it(
      "takes the site's colours, radius and font from --consent-* properties, in either scheme",
      async () => {
        const site = await createSite(f.t, f.key, f.pages.origin);
        const { context, page } = await f.visit(site);
        await page.addStyleTag({ content: CUSTOM_THEME });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.locator(BANNER).waitFor();
        const expected = {
          bg: 'rgb(253, 246, 227)',
          fg: 'rgb(45, 42, 34)',
          font: 'Georgia, "Times New Roman", serif',
          size: '16px',
          primaryBg: 'rgb(122, 46, 14)',
          primaryFg: 'rgb(255, 255, 255)',
          radius: '22px',
          altBg: 'rgb(253, 246, 227)',
          altFg: 'rgb(45, 42, 34)',
        };
        // The site's values win over the dark defaults too: a site themes once.
        expect(await look(page)).toEqual(expected);
        await page.emulateMedia({ colorScheme: 'light' });
        expect(await look(page)).toEqual(expected);
        await expectAccessible(page, 'custom');
        await context.close();
      },
      AXE_TEST_TIMEOUT,
    );

    it(
      'a site theme with too little contrast is caught by the same check (the check can fail)',
      async () => {
        const site = await createSite(f.t, f.key, f.pages.origin);
        const { context, page } = await f.visit(site);
        await page.addStyleTag({ content: ':root{--consent-fg:#aaa;--consent-accent:#ffd54f}' });
        await page.locator(BANNER).waitFor();
        const ids = (await axeViolations(page, BANNER)).map((v) => v.id);
        expect(ids).toEqual(['color-contrast']);
        await context.close();
      },
      AXE_TEST_TIMEOUT,
    );
  },
);
