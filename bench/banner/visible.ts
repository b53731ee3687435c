/**
 * Before measuring, each variant is opened once in Chromium (playwright-core, the root package's)
 * at a phone's and a desktop's width: every banner must show its title, and the page without one
 * must not, or the figures would compare pages that do not draw what they claim. A screenshot of
 * each is kept under test-results/bench-banner/ for a human to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { NO_BANNER } from './report.ts';
import { BANNER_TEXT } from './texts.ts';

const VIEWPORTS = { mobile: { width: 412, height: 823 }, desktop: { width: 1350, height: 940 } };

export async function checkBannersShow(
  chromePath: string,
  variants: { name: string; url: string }[],
  shotsDir: string,
): Promise<void> {
  fs.mkdirSync(shotsDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromePath, args: ['--headless', '--no-sandbox'] });
  try {
    for (const [preset, viewport] of Object.entries(VIEWPORTS)) {
      for (const variant of variants) {
        const context = await browser.newContext({ viewport, locale: 'en-US' });
        const page = await context.newPage();
        await page.goto(variant.url);
        const title = page.getByText(BANNER_TEXT.title, { exact: true }).first();
        if (variant.name === NO_BANNER) {
          await page.waitForLoadState('networkidle');
          if (await title.isVisible()) throw new Error(`${variant.name}: a banner is showing`);
        } else {
          await title.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => {
            throw new Error(
              `${variant.name} (${preset}): the banner's title "${BANNER_TEXT.title}" never showed`,
            );
          });
        }
        const slug = variant.name.replace(/\W+/g, '-');
        await page.screenshot({ path: path.join(shotsDir, `${slug}-${preset}.png`) });
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
}
