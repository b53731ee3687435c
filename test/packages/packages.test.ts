import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSdk } from '../../sdk/build.ts';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from '../sdk/fixture.ts';
import { browserSkipReason, createSite } from '../sdk/harness.ts';
import { docExamples, EXAMPLE_TSX, MINIMAL_JS, PAGE_TSX, pageHtml, SSR_MJS, TSCONFIG } from './app-files.ts';
import { installThrowawayApp, type ThrowawayApp } from './throwaway-app.ts';

/**
 * The npm packages as a customer gets them: packed, installed from the tarballs into an app outside
 * the repository, then type-checked, rendered on the server, and run in Chromium against the service.
 */
/** The docs whose TypeScript examples are type-checked against the installed packages. */
const DOCS = [
  'docs/guides/bundlers-and-react.md',
  'packages/browser/README.md',
  'packages/react/README.md',
  'packages/core/README.md',
  'docs/guides/apps.md',
];
const examples = docExamples(DOCS.map((file) => path.resolve(import.meta.dirname, '../..', file)));

describe.skipIf(skipWith(browserSkipReason))('npm packages installed from their tarballs', () => {
  let installing: Promise<ThrowawayApp>;
  let app: ThrowawayApp;
  // Started first, so the install runs while the fixture starts the service and Chromium.
  beforeAll(() => {
    installing = installThrowawayApp();
    installing.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  });
  const f = sdkFixture();
  beforeAll(async () => {
    app = await installing;
    app.write(examples);
    app.write({
      'tsconfig.json': TSCONFIG,
      'example.tsx': EXAMPLE_TSX,
      'page.tsx': PAGE_TSX,
      'ssr.mjs': SSR_MJS,
      'minimal.js': MINIMAL_JS,
    });
  }, 300_000);
  afterAll(() => app?.remove());

  // tsc over the three packages and the examples: about 20 CPU-seconds, longer beside other files.
  it('type-checks, strict, an example that uses every export of the three packages, and the docs examples', async () => {
    expect(Object.keys(examples)).toHaveLength(7);
    const { code, output } = await app.typecheck();
    expect(output).toBe('');
    expect(code).toBe(0);
    // The packages came from the tarballs, not from the repository's workspace links.
    for (const name of ['browser', 'client', 'core', 'react']) {
      const installed = path.join(app.dir, 'node_modules/@consent-service', name);
      expect(fs.lstatSync(installed).isSymbolicLink(), name).toBe(false);
      expect(fs.existsSync(path.join(installed, 'dist/index.js')), name).toBe(true);
    }
  }, 120_000);

  it('renders a gated tree on the server: the fallback, no window, nothing thrown', async () => {
    const result = JSON.parse(await app.node('ssr.mjs'));
    expect(result.window).toBe('undefined');
    expect(result.html).toContain('<p id="fallback">Analytics is off</p>');
    expect(result.html).not.toContain('gated');
    expect(result.html).toContain(
      '{&quot;ready&quot;:false,&quot;decisions&quot;:null,&quot;analytics&quot;:false}',
    );
    // What each package exports at run time (its types are checked above); example.tsx uses each.
    expect(result.exports).toEqual({
      browser: ['createConsent'],
      client: [
        'ConsentServiceError',
        'WebhookVerificationError',
        'createConsentClient',
        'paginate',
        'verifyWebhook',
      ],
      react: ['ConsentGate', 'ConsentProvider', 'ConsentScript', 'useConsent', 'useConsentFor'],
    });
  });

  it('bundles the browser package, minified, to about the size of the snippet sdk.js (the same source)', async () => {
    const [{ code }, sdk] = await Promise.all([app.bundle('minimal.js'), buildSdk()]);
    const gzipped = gzipSync(code, { level: 9 }).length;
    const sdkGzipped = gzipSync(sdk, { level: 9 }).length;
    console.log(
      `@consent-service/browser, createConsent in a minimal bundle: ${code.length} bytes, ${gzipped} gzipped; ` +
        `sdk.js: ${sdk.length} bytes, ${sdkGzipped} gzipped`,
    );
    // sdk.js is the package plus the snippet's boot (finding its script tag): a little larger, never much.
    expect(gzipped).toBeLessThanOrEqual(sdkGzipped);
    expect(gzipped).toBeGreaterThan(sdkGzipped * 0.9);
  });

  it('opens a ConsentGate in Chromium after "Accept all" and closes it when the preferences withdraw it', async () => {
    const { code, inputs } = await app.bundle('page.tsx');
    const outside = inputs.filter((input) => !input.startsWith(`${app.dir}${path.sep}`));
    expect(outside).toEqual([]);
    const site = await createSite(f.t, f.key, f.pages.origin);
    f.pages.setPage('/react-shop.html', pageHtml(site.siteKey, f.t.baseUrl, code));
    const context = await f.browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${f.pages.origin}/react-shop.html`);

    await page.locator(BANNER).waitFor();
    // StrictMode mounted the provider twice: still one SDK, one banner.
    expect(await page.locator(BANNER).count()).toBe(1);
    expect(await page.locator('#state').getAttribute('data-ready')).toBe('true');
    expect(await page.locator('#fallback').isVisible()).toBe(true);
    expect(await page.locator('#gated').count()).toBe(0);

    // ConsentScript: nothing before consent.
    expect(await page.locator('script[data-consent-script]').count()).toBe(0);
    await page.click(action('accept-all'));
    await page.locator('#gated').waitFor();
    // Under StrictMode (effects run twice): one script inserted, run once.
    await page.waitForFunction(() => (globalThis as { trackerRuns?: number }).trackerRuns !== undefined);
    expect(await page.locator('script[data-consent-script]').count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as { trackerRuns?: number }).trackerRuns)).toBe(1);
    expect(await page.locator('#fallback').count()).toBe(0);
    const [accepted] = await f.recorded(context, site, 1);
    expect(accepted).toMatchObject({
      decisions: { analytics: 'granted', marketing: 'granted' },
      source: 'banner',
    });
    f.t.clock.advance(1000); // the evidence list is newest first: keep the two recordedAt apart

    await page.click('#privacy-settings');
    const analytics = page.locator('input[data-consent-purpose="analytics"]');
    expect(await analytics.isChecked()).toBe(true);
    await analytics.uncheck();
    await page.click(action('save'));
    await page.locator('#fallback').waitFor();
    expect(await page.locator('#gated').count()).toBe(0);
    const [withdrawn] = await f.recorded(context, site, 2);
    expect(withdrawn).toMatchObject({
      decisions: { analytics: 'denied', marketing: 'granted' },
      source: 'preference_center',
    });
    expect(errors).toEqual([]);
    await context.close();
  });
});
