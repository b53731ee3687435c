import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, consentState, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite } from './harness.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const decided = 'window.ConsentService && window.ConsentService.getDecisions() !== null';

describe.skipIf(skipWith(browserSkipReason))(
  'browser SDK in Chromium against the real service: lifecycle',
  () => {
    const f = sdkFixture();
    const { visit, recorded, ran, gtagCalls, decisions } = f;

    it('a returning visitor sees no banner and gets the stored decision; after 180 days it is asked again', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site);
      await page.click(action('accept-all'));
      await recorded(context, site, 1);

      const again = await context.newPage();
      await again.goto(page.url());
      await again.waitForFunction(decided);
      expect(await again.locator(BANNER).count()).toBe(0);
      await expect.poll(() => ran(again)).toHaveLength(4);
      expect((await gtagCalls(again)).map((call) => call[1])).toEqual(['default', 'update']);
      const granted = { necessary: 'granted', analytics: 'granted', marketing: 'granted' };
      expect(await again.evaluate('window.changes')).toEqual([
        { decisions: granted, configVersion: site.configVersion },
      ]);
      await recorded(context, site, 1); // nothing new recorded

      await context.clock.setFixedTime(new Date(Date.now() + 181 * DAY_MS));
      const later = await context.newPage();
      await later.goto(page.url());
      await later.locator(BANNER).waitFor();
      expect(await decisions(later)).toBeNull();
      expect(await ran(later)).toEqual(['page']);
      await context.close();
    });

    it('a configVersion bump asks again, prefilled with the earlier choice, and records the new version', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const first = await visit(site);
      await first.page.click(action('customize'));
      await first.page.check('input[data-consent-purpose="analytics"]');
      await first.page.click(action('save'));
      await recorded(first.context, site, 1);
      const storageState = await first.context.storageState();
      await first.context.close();

      const res = await f.t.http.post(`/v1/channels/${site.channelId}/purposes`, {
        key: f.key,
        body: {
          key: 'personalisation',
          name: 'Personalisation',
          consentModeSignals: ['personalization_storage'],
        },
      });
      expect(res.status, res.text).toBe(201);
      f.t.clock.advance(6000); // past the service's 5 s site cache
      const bumped = (await f.t.http.get(`/v1/channels/${site.channelId}`, { key: f.key })).body.data
        .configVersion;
      expect(bumped).toBeGreaterThan(site.configVersion);

      // A new context keeps the cookies but not the HTTP cache (the config may be cached for 60 s).
      const { context, page } = await visit(site, { storageState });
      await page.locator(BANNER).waitFor();
      expect(await decisions(page)).toBeNull();
      expect(await ran(page)).toEqual(['page']);
      await page.click(action('customize'));
      expect(await page.locator('input[type=checkbox][data-consent-purpose]').count()).toBe(4);
      expect(await page.isChecked('input[data-consent-purpose="analytics"]')).toBe(true);
      expect(await page.isChecked('input[data-consent-purpose="personalisation"]')).toBe(false);
      await page.click(action('save'));
      const [latest, earlier] = await recorded(context, site, 2);
      expect(earlier.configVersion).toBe(site.configVersion);
      expect(latest).toMatchObject({
        configVersion: bumped,
        decisions: {
          necessary: 'granted',
          analytics: 'granted',
          marketing: 'denied',
          personalisation: 'denied',
        },
      });
      await context.close();
    });

    it('GPC: gpcOptOut purposes stay denied even on accept-all, and gpc: true is recorded', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site, { gpc: true });
      await page.locator(BANNER).waitFor();
      expect(await page.locator(BANNER).textContent()).toContain('Global Privacy Control');
      await page.click(action('customize'));
      const marketing = page.locator('input[data-consent-purpose="marketing"]');
      expect([await marketing.isChecked(), await marketing.isDisabled()]).toEqual([false, true]);
      await page.click(action('accept-all'));
      const [event] = await recorded(context, site, 1);
      expect(event).toMatchObject({
        decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
        gpc: true,
        source: 'banner',
      });
      await expect.poll(() => ran(page)).toHaveLength(3);
      expect(await ran(page)).not.toContain('marketing-inline');
      expect((await gtagCalls(page)).at(-1)).toEqual([
        'consent',
        'update',
        consentState('analytics_storage'),
      ]);
      await context.close();
    });

    it('GPC alone settles a site whose optional purposes are all gpcOptOut: no banner, source "gpc"', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin, { gpcOnly: true });
      const { context, page } = await visit(site, { gpc: true });
      await page.waitForFunction(decided);
      expect(await page.locator(BANNER).count()).toBe(0);
      const [event] = await recorded(context, site, 1);
      expect(event).toMatchObject({
        decisions: { necessary: 'granted', marketing: 'denied' },
        configVersion: site.configVersion,
        source: 'gpc',
        gpc: true,
      });
      await context.close();
    });

    it('a lost answer is retried with the same Idempotency-Key and recorded exactly once', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site);
      const keys: string[] = [];
      await page.route('**/preferences', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        keys.push((await route.request().allHeaders())['idempotency-key']);
        if (keys.length > 1) return route.continue();
        // The service records the first attempt, but its answer never reaches the page.
        const response = await route.fetch();
        expect(response.status()).toBe(201);
        return route.abort('failed');
      });
      await page.click(action('reject-all'));
      await expect.poll(() => keys.length, { timeout: 10_000 }).toBe(2);
      expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(keys[1]).toBe(keys[0]);
      await expect.poll(() => page.evaluate(`localStorage.getItem('cs_pending_${site.siteKey}')`)).toBeNull();
      const [event] = await recorded(context, site, 1);
      expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'denied', marketing: 'denied' });
      await context.close();
    });

    it('a decision the network refused is kept and delivered by the next page load, once', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site);
      let aborted = 0;
      await page.route('**/preferences', (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        aborted++;
        return route.abort('internetdisconnected');
      });
      await page.click(action('accept-all'));
      await expect.poll(() => aborted).toBeGreaterThan(0);
      expect(await page.evaluate(`localStorage.getItem('cs_pending_${site.siteKey}')`)).toContain(
        '"marketing":"granted"',
      );
      const url = page.url();
      await page.close(); // its retry timers die with it

      const next = await context.newPage();
      await next.goto(url);
      await next.waitForFunction(decided);
      expect(await next.locator(BANNER).count()).toBe(0);
      const [event] = await recorded(context, site, 1);
      expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'granted' });
      await expect.poll(() => next.evaluate(`localStorage.getItem('cs_pending_${site.siteKey}')`)).toBeNull();
      await context.close();
    });

    it('showPreferences() reopens the choices (source preference_center); onChange and reset() work', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site);
      await page.click(action('reject-all'));
      await recorded(context, site, 1);
      await page.evaluate('window.seen = []; window.ConsentService.onChange((d) => window.seen.push(d))');
      await page.evaluate('window.ConsentService.showPreferences()');
      expect(await page.locator(BANNER).getAttribute('data-consent-view')).toBe('customize');
      expect(await page.isChecked('input[data-consent-purpose="analytics"]')).toBe(false);
      await page.check('input[data-consent-purpose="analytics"]');
      f.t.clock.advance(1000); // the list is newest first: keep the two recordedAt apart
      await page.click(action('save'));
      const [latest] = await recorded(context, site, 2);
      expect(latest).toMatchObject({ source: 'preference_center', decisions: { analytics: 'granted' } });
      await expect.poll(() => ran(page)).toHaveLength(3);

      await page.evaluate('window.ConsentService.reset()');
      expect(await decisions(page)).toBeNull();
      await page.locator(BANNER).waitFor();
      expect(await page.evaluate('window.seen')).toEqual([
        { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
        null,
      ]);
      expect((await gtagCalls(page)).at(-1)).toEqual(['consent', 'update', consentState()]);
      await context.close();
    });

    it('acceptAll() and rejectAll() decide for the page\'s own buttons: the banner closes, source "api"', async () => {
      const site = await createSite(f.t, f.key, f.pages.origin);
      const { context, page } = await visit(site);
      await page.locator(BANNER).waitFor();
      await page.evaluate('window.ConsentService.acceptAll()');
      const [accepted] = await recorded(context, site, 1);
      expect(accepted).toMatchObject({
        source: 'api',
        decisions: { analytics: 'granted', marketing: 'granted' },
      });
      expect(await page.locator(BANNER).count()).toBe(0);
      f.t.clock.advance(1000); // the list is newest first: keep the two recordedAt apart
      await page.evaluate('window.ConsentService.rejectAll()');
      const [rejected] = await recorded(context, site, 2);
      expect(rejected).toMatchObject({
        source: 'api',
        decisions: { analytics: 'denied', marketing: 'denied' },
      });
      expect(await decisions(page)).toEqual({
        necessary: 'granted',
        analytics: 'denied',
        marketing: 'denied',
      });
      await context.close();
    });
  },
);
