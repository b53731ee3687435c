import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite } from './harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The SDK's createConsent (sdk/src/consent.ts) bundled from source as sdk/build.ts bundles it: the
 * page starts site A twice and site B once.
 */
const ENTRY = `
import { createConsent } from './sdk/src/consent.ts';
const { baseUrl, siteA, siteB } = document.currentScript.dataset;
window.a1 = createConsent({ baseUrl, siteKey: siteA });
window.a2 = createConsent({ baseUrl, siteKey: siteA });
window.b = createConsent({ baseUrl, siteKey: siteB });
`;

async function bundle(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/**
 * Each SDK instance has its own state and its own banner root: two sites on one page each show
 * their banner, and a choice in one closes that one only. A second start for the same site returns
 * the running SDK (one per site per page) instead of a second banner.
 */
describe.skipIf(skipWith(browserSkipReason))('two SDK instances on one page', () => {
  const f = sdkFixture();

  it('two sites: two banners, each closed by its own choice; the same site started twice: one SDK', async () => {
    const [a, b] = [
      await createSite(f.t, f.key, f.pages.origin),
      await createSite(f.t, f.key, f.pages.origin),
    ];
    const code = (await bundle()).replaceAll('</script', '<\\/script');
    const attrs = `data-base-url="${f.t.baseUrl}" data-site-a="${a.siteKey}" data-site-b="${b.siteKey}"`;
    f.pages.setPage(
      '/two-sites.html',
      `<!doctype html><html lang="en"><body><p>Shop</p><script ${attrs}>${code}</script></body></html>`,
    );
    const context = await f.browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${f.pages.origin}/two-sites.html`);

    await expect.poll(() => page.locator(BANNER).count()).toBe(2);
    expect(await page.evaluate('window.a1 === window.a2')).toBe(true);
    expect(await page.evaluate('window.a1 === window.b')).toBe(false);

    // The two configurations load in parallel, so either banner may be drawn first: "Accept all"
    // in the second one decides for its own site alone, whichever that is.
    const decisions = () =>
      page.evaluate('[window.a1.getDecisions(), window.b.getDecisions()]') as Promise<unknown[]>;
    await page.locator(BANNER).nth(1).locator(action('accept-all')).click();
    await expect.poll(() => page.locator(BANNER).count()).toBe(1);
    const afterFirst = await decisions();
    const accepted = afterFirst.findIndex((d) => d !== null);
    expect(afterFirst.filter((d) => d === null)).toHaveLength(1);
    expect(afterFirst[accepted]).toMatchObject({ analytics: 'granted' });

    await page.locator(BANNER).locator(action('reject-all')).click();
    await expect.poll(() => page.locator(BANNER).count()).toBe(0);
    const afterSecond = await decisions();
    expect(afterSecond[accepted]).toMatchObject({ analytics: 'granted' });
    expect(afterSecond[1 - accepted]).toMatchObject({ analytics: 'denied' });
    expect(errors).toEqual([]);
    await context.close();
  });
});
