import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, consentState, SHOTS, sdkFixture } from './fixture.ts';
import { browserSkipReason, shopPage } from './harness.ts';
import {
  CHOICES,
  EVERYTHING_RAN,
  JP_NOTICE,
  LINK,
  NOTICE,
  regionHelpers,
  settled,
  US_OPT_OUT,
} from './regions-helpers.ts';

/**
 * docs/regions.md: one shop page seen from regions under different regimes, through
 * the declared region (`data-region`) that test channels honour, against the real service.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: regions and regimes', () => {
  const f = sdkFixture();
  const { visit, recorded, ran, gtagCalls, decisions } = f;
  const { siteWithRules, visitFrom, configFor, expectNoAxeViolations, noEvidence, consentCookie } =
    regionHelpers(f);

  it('FR on a US opt-out channel: the opt-in banner, nothing optional runs', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const { context, page, urls } = await visitFrom(site, 'FR');
    await page.locator(BANNER).waitFor();
    expect(urls).toContain(`GET /v1/public/sites/${site.siteKey}/config?region=FR`);
    expect(await page.locator(BANNER).getAttribute('data-consent-view')).toBe('banner');
    expect(await page.locator(`${NOTICE}, ${CHOICES}`).count()).toBe(0);
    expect(await ran(page)).toEqual(['page']);
    expect(await decisions(page)).toBeNull();
    expect(await configFor(site, 'FR')).toMatchObject({
      regime: 'opt-in',
      region: { code: 'FR', source: 'declared' },
      consentMaxAgeDays: 180,
    });
    await context.close();
  });

  it('US-CA: no blocking banner, optional scripts run, a notice and then "Your Privacy Choices"; opting out there records it and stops the purpose', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    expect(await configFor(site, 'US-CA')).toMatchObject({ regime: 'opt-out' });
    const { context, page, urls } = await visitFrom(site, 'US-CA');
    await page.waitForFunction(settled);
    expect(urls).toContain(`GET /v1/public/sites/${site.siteKey}/config?region=US-CA`);
    await page.locator(NOTICE).waitFor();
    expect(await page.locator(BANNER).count()).toBe(0);
    await expect.poll(() => ran(page)).toHaveLength(4);
    expect((await ran(page)).sort()).toEqual(EVERYTHING_RAN);
    const frame = page.locator('iframe[data-consent-purpose="marketing"]');
    expect(await frame.getAttribute('src')).toBe('/ad.html');
    expect((await gtagCalls(page)).at(-1)).toEqual([
      'consent',
      'update',
      consentState('ad_storage', 'ad_user_data', 'ad_personalization', 'analytics_storage'),
    ]);
    // The notice informs: it is a labelled region, says optional purposes run until the visitor
    // opts out, and offers the choices; nothing is recorded and no cookie is set.
    const notice = page.locator(NOTICE);
    expect(await notice.getAttribute('role')).toBe('region');
    expect(await page.locator('#cs-notice-title').textContent()).toBe('Cookies on this site');
    expect(await notice.textContent()).toContain('unless you opt out');
    expect(await notice.locator(CHOICES).textContent()).toBe('Your Privacy Choices');
    expect(await consentCookie(page, site)).toBeUndefined();
    await expectNoAxeViolations(page, NOTICE);
    await page.screenshot({ path: `${SHOTS}/notice-opt-out-1280.png` });

    // Dismissed by keyboard: the persistent button replaces the notice and takes the focus.
    await notice.locator(action('dismiss')).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator(NOTICE).count()).toBe(0);
    const link = page.locator(LINK);
    expect(await link.textContent()).toBe('Your Privacy Choices');
    expect(await page.evaluate(`document.activeElement.matches('${LINK}')`)).toBe(true);
    await expectNoAxeViolations(page, LINK);
    await page.screenshot({ path: `${SHOTS}/privacy-choices-1280.png` });
    await noEvidence(site);

    // The next page: the notice stays dismissed, the button is there.
    await page.reload();
    await page.locator(LINK).waitFor();
    expect(await page.locator(NOTICE).count()).toBe(0);
    await expect.poll(() => ran(page)).toHaveLength(4);

    // Opting out of marketing through the button: recorded with the region, applied at once.
    await page.click(LINK);
    await page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
    const marketing = page.locator('input[data-consent-purpose="marketing"]');
    expect(await marketing.isChecked()).toBe(true); // what runs now, not an empty form
    await marketing.uncheck();
    await page.click(action('save'));
    const [event] = await recorded(context, site, 1);
    expect(urls).toContain(`POST /v1/public/sites/${site.siteKey}/preferences?region=US-CA`);
    expect(event).toMatchObject({
      source: 'preference_center',
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      configVersion: site.configVersion,
      region: 'US-CA',
      regionSource: 'declared',
      regime: 'opt-out',
    });
    expect(await page.locator(BANNER).count()).toBe(0);
    expect(await page.evaluate(`document.activeElement.matches('${LINK}')`)).toBe(true);
    expect(await decisions(page)).toEqual({
      necessary: 'granted',
      analytics: 'granted',
      marketing: 'denied',
    });
    expect((await gtagCalls(page)).at(-1)).toEqual(['consent', 'update', consentState('analytics_storage')]);
    // The advert's frame is unloaded and blocked again.
    expect([await frame.getAttribute('src'), await frame.getAttribute('data-src')]).toEqual([
      null,
      '/ad.html',
    ]);
    expect(page.frames().map((frame) => frame.url())).not.toContain(`${f.pages.origin}/ad.html`);

    // And it never starts again on later pages.
    const adHits = () => f.pages.hits.filter((p) => p === '/ad.html').length;
    const before = adHits();
    await page.reload();
    await page.waitForFunction(settled);
    await expect.poll(() => ran(page)).toHaveLength(3);
    expect((await ran(page)).sort()).toEqual(['analytics-inline', 'analytics-src', 'page']);
    expect(adHits()).toBe(before);
    await page.locator(LINK).waitFor();
    expect(await page.locator(NOTICE).count()).toBe(0);
    await context.close();
  });

  it("opt-out with the page's own footer link: no floating button, the page's link opens the preferences", async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const sdkSrc = `${f.t.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`;
    const footer =
      '<footer><a id="own" href="#privacy" data-consent-action="privacy-choices">Your Privacy Choices</a></footer>';
    const html = shopPage(sdkSrc, site.siteKey, { gtag: true, region: 'US-CA' }).replace(
      '</main>',
      `</main>${footer}`,
    );
    f.pages.setPage(`/footer-${site.siteKey}.html`, html);
    const context = await f.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${f.pages.origin}/footer-${site.siteKey}.html`);
    await page.click(`${NOTICE} ${action('dismiss')}`);
    await page.waitForFunction(settled);
    expect(await page.locator(`${NOTICE}, ${LINK}`).count()).toBe(0);
    await page.click('#own');
    await page.locator(`${BANNER}[data-consent-view="customize"]`).waitFor();
    expect(new URL(page.url()).hash).toBe(''); // the SDK handled the click, the link did not navigate
    await page.click(action('reject-all'));
    const [event] = await recorded(context, site, 1);
    expect(event).toMatchObject({
      source: 'preference_center',
      regime: 'opt-out',
      decisions: { marketing: 'denied' },
    });
    expect(await page.evaluate('document.activeElement.id')).toBe('own');
    expect(await page.locator(LINK).count()).toBe(0);
    await context.close();
  });

  it('notice-only (JP): a dismissible notice, optional scripts run, no decision recorded', async () => {
    const site = await siteWithRules(JP_NOTICE);
    const { context, page } = await visitFrom(site, 'JP', { locale: 'en-GB' });
    await page.locator(NOTICE).waitFor();
    expect(await page.locator(BANNER).count()).toBe(0);
    await expect.poll(() => ran(page)).toHaveLength(4);
    expect((await ran(page)).sort()).toEqual(EVERYTHING_RAN);
    const text = await page.locator(NOTICE).textContent();
    expect(text).toContain('We use cookies');
    expect(text).not.toContain('opt out');
    // Notice-only asks nothing: no choices button in the notice or after it.
    expect(await page.locator(CHOICES).count()).toBe(0);
    await expectNoAxeViolations(page, NOTICE);
    await page.screenshot({ path: `${SHOTS}/notice-only-1280.png` });
    await page.click(action('dismiss'));
    await expect.poll(() => page.locator(NOTICE).count()).toBe(0);
    expect(await page.locator(`${LINK}, ${BANNER}`).count()).toBe(0);
    expect(await consentCookie(page, site)).toBeUndefined();
    await page.reload();
    await page.waitForFunction(settled);
    expect(await page.locator(`${NOTICE}, ${BANNER}`).count()).toBe(0);
    await noEvidence(site);
    await context.close();
  });

  it('the notice and the button fit a 360 px viewport without horizontal overflow', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const { context, page } = await visit(site, { region: 'US-CA', width: 360 });
    await page.locator(NOTICE).waitFor();
    const fits = (selector: string) =>
      page.evaluate(`(() => { const w = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll('${selector}, ${selector} *')].filter((el) => {
        const r = el.getBoundingClientRect(); return r.width > 0 && (r.left < 0 || r.right > w + 0.5); });
      return { scroll: document.documentElement.scrollWidth, out: out.map((el) => el.outerHTML.slice(0, 80)) }; })()`);
    expect(await fits(NOTICE)).toEqual({ scroll: 360, out: [] });
    await page.screenshot({ path: `${SHOTS}/notice-opt-out-360.png` });
    await page.click(action('dismiss'));
    await page.locator(LINK).waitFor();
    expect(await fits(LINK)).toEqual({ scroll: 360, out: [] });
    await context.close();
  });

  it('dark scheme and a site theme: the notice and the button follow the banner theme, axe 0 violations', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const { context, page } = await visitFrom(site, 'US-CA', { colorScheme: 'dark' });
    await page.locator(NOTICE).waitFor();
    const colours = (selector: string) =>
      page.evaluate(`(() => { const s = getComputedStyle(document.querySelector('${selector}'));
        return [s.backgroundColor, s.color]; })()`) as Promise<string[]>;
    // The banner's dark defaults (styles.ts): background #1e1f22, text #f1f1f1.
    expect(await colours(NOTICE)).toEqual(['rgb(30, 31, 34)', 'rgb(241, 241, 241)']);
    await expectNoAxeViolations(page, NOTICE);
    await page.screenshot({ path: `${SHOTS}/notice-dark-1280.png` });
    await page.click(action('dismiss'));
    await page.locator(LINK).waitFor();
    expect((await colours(LINK))[0]).toBe('rgb(30, 31, 34)');
    await expectNoAxeViolations(page, LINK);

    // A site theme (--consent-* on :root, as docs/guides/banner-theming.md shows) applies to both.
    // The button carries the California opt-out icon, decorative (the words name the button), blue by default.
    const iconFills = () =>
      page.evaluate(
        `[...document.querySelectorAll('${LINK} svg path')].map((p) => getComputedStyle(p).fill)`,
      ) as Promise<string[]>;
    expect(await page.locator(`${LINK} svg`).getAttribute('aria-hidden')).toBe('true');
    expect(new Set(await iconFills())).toEqual(new Set(['rgb(0, 102, 255)', 'rgb(255, 255, 255)']));
    await page.addStyleTag({
      content:
        ':root{--consent-bg:#fdf6e3;--consent-fg:#2d2a22;--consent-link:#7a2e0e;--consent-optout-icon:#7a2e0e}',
    });
    expect(await colours(LINK)).toEqual(['rgb(253, 246, 227)', 'rgb(122, 46, 14)']);
    expect(new Set(await iconFills())).toEqual(new Set(['rgb(122, 46, 14)', 'rgb(255, 255, 255)']));
    await page.locator(LINK).screenshot({ path: `${SHOTS}/privacy-choices-icon-themed.png` });
    await expectNoAxeViolations(page, LINK);
    await page.evaluate('window.ConsentService.reset()');
    await page.locator(NOTICE).waitFor();
    expect(await colours(NOTICE)).toEqual(['rgb(253, 246, 227)', 'rgb(45, 42, 34)']);
    await expectNoAxeViolations(page, NOTICE);
    await context.close();
  });
});
