import { describe, expect, it } from 'vitest';
import { buildSdk } from '../../sdk/build.ts';
import { skipWith } from '../helpers/skip.ts';
import { ALL_DENIED, action, BANNER, consentState, SHOTS, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite } from './harness.ts';

describe.skipIf(skipWith(browserSkipReason))(
  'browser SDK in Chromium against the real service: the banner',
  () => {
    const f = sdkFixture();
    const { visit, recorded, ran, gtagCalls, decisions, optionalHits } = f;

    it('shows an accessible banner, runs nothing blocked and sets Consent Mode defaults before a decision', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const hitsBefore = optionalHits().length;
      const { context, page } = await visit(site);
      const banner = page.locator(BANNER);
      await banner.waitFor();
      // Focus moves in once the banner's first frame is drawn (sdk/src/banner.ts, focusInto).
      await page.waitForFunction(`document.querySelector('${BANNER}').contains(document.activeElement)`);
      expect(await banner.getAttribute('role')).toBe('dialog');
      const labelled = await page.evaluate(
        `(() => { const b = document.querySelector('${BANNER}');
        return { label: document.getElementById(b.getAttribute('aria-labelledby'))?.textContent,
                 desc: document.getElementById(b.getAttribute('aria-describedby'))?.textContent,
                 focusInside: b.contains(document.activeElement) }; })()`,
      );
      expect(labelled).toMatchObject({ label: 'Your privacy choices', focusInside: true });
      expect((labelled as any).desc).toContain('Privacy policy');
      // Reject is exactly as prominent as accept: same size, same style.
      const [accept, reject] = await Promise.all([
        page.locator(action('accept-all')).boundingBox(),
        page.locator(action('reject-all')).boundingBox(),
      ]);
      expect([reject!.width, reject!.height]).toEqual([accept!.width, accept!.height]);
      const styles = await page.evaluate(
        `['accept-all','reject-all'].map((a) => { const s = getComputedStyle(document.querySelector('[data-consent-action="' + a + '"]'));
        return [s.backgroundColor, s.color, s.fontSize, s.fontWeight, s.borderWidth].join(' '); })`,
      );
      expect((styles as string[])[0]).toBe((styles as string[])[1]);

      expect(await ran(page)).toEqual(['page']);
      expect(optionalHits().length).toBe(hitsBefore);
      expect(await gtagCalls(page)).toEqual([['consent', 'default', ALL_DENIED]]);
      expect(await decisions(page)).toBeNull();
      await page.screenshot({ path: `${SHOTS}/banner-1280.png` });
      await page.click(action('customize'));
      const boxes = page.locator('input[type=checkbox][data-consent-purpose]');
      expect(await boxes.count()).toBe(3);
      const necessary = page.locator('input[data-consent-purpose="necessary"]');
      expect([await necessary.isChecked(), await necessary.isDisabled()]).toEqual([true, true]);
      expect(await page.locator('input[data-consent-purpose="analytics"]').isChecked()).toBe(false);
      await expect.poll(() => page.locator(BANNER).textContent()).toContain('Example Analytics Inc.');
      await page.screenshot({ path: `${SHOTS}/customize-1280.png` });
      expect(await ran(page)).toEqual(['page']);
      await context.close();
    });

    it('fits a 360 px viewport without horizontal overflow (banner and customize view)', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site, { width: 360 });
      await page.locator(BANNER).waitFor();
      const fits = `(() => { const w = document.documentElement.clientWidth;
      const out = [...document.querySelectorAll('${BANNER}, ${BANNER} *')].filter((el) => {
        const r = el.getBoundingClientRect(); return r.width > 0 && (r.left < 0 || r.right > w + 0.5); });
      return { scroll: document.documentElement.scrollWidth, width: w, out: out.map((el) => el.outerHTML.slice(0, 80)) }; })()`;
      expect(await page.evaluate(fits)).toEqual({ scroll: 360, width: 360, out: [] });
      await page.screenshot({ path: `${SHOTS}/banner-360.png` });
      await page.click(action('customize'));
      expect(await page.evaluate(fits)).toEqual({ scroll: 360, width: 360, out: [] });
      await page.screenshot({ path: `${SHOTS}/customize-360.png`, fullPage: true });
      await context.close();
    });

    it('reject-all records denials, runs nothing optional and keeps Consent Mode denied', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const hitsBefore = optionalHits().length;
      const { context, page } = await visit(site);
      await page.click(action('reject-all'));
      await expect.poll(() => page.locator(BANNER).count()).toBe(0);
      const [event] = await recorded(context, site, 1);
      expect(event).toMatchObject({
        decisions: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
        configVersion: site.configVersion,
        policyVersion: site.channel.privacyPolicy.version,
        source: 'banner',
        language: 'en',
        gpc: false,
        origin: f.pages.origin,
      });
      expect(await ran(page)).toEqual(['page']);
      expect(optionalHits().length).toBe(hitsBefore);
      expect(await gtagCalls(page)).toEqual([
        ['consent', 'default', ALL_DENIED],
        ['consent', 'update', consentState()],
      ]);
      const rejected = { necessary: 'granted', analytics: 'denied', marketing: 'denied' };
      expect(await decisions(page)).toEqual(rejected);
      expect(await page.evaluate('window.changes')).toEqual([
        { decisions: rejected, configVersion: site.configVersion },
      ]);
      await context.close();
    });

    it('accept-all records grants and runs every blocked script and iframe once (dataLayer without gtag)', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site, { gtag: false });
      await page.locator(BANNER).waitFor();
      expect(optionalHits()).not.toContain('/ad.html');
      await page.click(action('accept-all'));
      const [event] = await recorded(context, site, 1);
      expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });
      await expect.poll(() => ran(page)).toHaveLength(4);
      expect((await ran(page)).sort()).toEqual([
        'analytics-inline',
        'analytics-src',
        'marketing-inline',
        'page',
      ]);
      const frame = page.locator('iframe[data-consent-purpose="marketing"]');
      expect(await frame.getAttribute('src')).toBe('/ad.html');
      await expect.poll(() => f.pages.hits.filter((p) => p === '/ad.html').length).toBe(1);
      // The SDK talks to the service only; everything else came from the shop's own origin.
      expect(f.requestOrigins(context)).toEqual([f.t.baseUrl, f.pages.origin].sort());
      // Without gtag the commands are queued on dataLayer as Arguments objects, as gtag.js expects;
      // then the consent_update event for tag managers' triggers, a plain object.
      const queued = await page.evaluate(
        "dataLayer.map((a) => { const type = Object.prototype.toString.call(a); return [type, JSON.parse(JSON.stringify(type === '[object Arguments]' ? Array.from(a) : a))]; })",
      );
      expect(queued).toEqual([
        ['[object Arguments]', ['consent', 'default', ALL_DENIED]],
        [
          '[object Arguments]',
          [
            'consent',
            'update',
            consentState('ad_storage', 'ad_user_data', 'ad_personalization', 'analytics_storage'),
          ],
        ],
        [
          '[object Object]',
          {
            event: 'consent_update',
            consent: { necessary: 'granted', analytics: 'granted', marketing: 'granted' },
          },
        ],
      ]);
      await context.close();
    });

    it("customize by keyboard alone, in the visitor's language, records and runs exactly the chosen purposes", async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site, { locale: 'de-AT' });
      const banner = page.locator(BANNER);
      await banner.waitFor();
      expect(await banner.getAttribute('lang')).toBe('de');
      expect(await page.locator('#cs-consent-title').textContent()).toBe('Ihre Datenschutz-Einstellungen');
      const focused = (selector: string) => page.evaluate(`document.activeElement.matches('${selector}')`);
      const tabTo = async (selector: string) => {
        for (let i = 0; i < 12; i++) {
          await page.keyboard.press('Tab');
          if (await focused(selector)) return;
        }
        throw new Error(`Tab never reached ${selector}`);
      };
      await tabTo(action('customize'));
      // A visible focus ring, not a colour change alone.
      expect(
        await page.evaluate(
          '(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle + " " + s.outlineWidth; })()',
        ),
      ).toBe('solid 3px');
      await page.keyboard.press('Enter');
      await page.locator('input[data-consent-purpose="analytics"]').waitFor();
      expect(
        await page.evaluate(`document.querySelector('${BANNER}').contains(document.activeElement)`),
      ).toBe(true);
      expect(await banner.textContent()).toContain('Statistik');
      await tabTo('input[data-consent-purpose="analytics"]');
      await page.keyboard.press('Space');
      await tabTo(action('save'));
      await page.keyboard.press('Enter');
      const [event] = await recorded(context, site, 1);
      expect(event).toMatchObject({
        decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
        source: 'banner',
        language: 'de',
        gpc: false,
      });
      await expect.poll(() => ran(page)).toHaveLength(3);
      expect((await ran(page)).sort()).toEqual(['analytics-inline', 'analytics-src', 'page']);
      const frame = page.locator('iframe[data-consent-purpose="marketing"]');
      expect([await frame.getAttribute('src'), await frame.getAttribute('data-src')]).toEqual([
        null,
        '/ad.html',
      ]);
      expect((await gtagCalls(page)).at(-1)).toEqual([
        'consent',
        'update',
        consentState('analytics_storage'),
      ]);
      await context.close();
    });

    it('serves the bundle built from sdk/src at …/sdk.js, after the config it carries', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const res = await f.t.http.get(`/v1/public/sites/${site.siteKey}/sdk.js`);
      expect(res.status).toBe(200);
      const config = await f.t.http.get(`/v1/public/sites/${site.siteKey}/config`);
      const statement = `(self.__consentServiceConfigs=self.__consentServiceConfigs||{})[${JSON.stringify(site.siteKey)}]=${config.text}.data;\n`;
      expect(res.text).toBe(statement + (await buildSdk()));
    });
  },
);
