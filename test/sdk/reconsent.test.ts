import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { action, BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason, createSite, type Site } from './harness.ts';
import { DAY_MS, regionHelpers, settled, US_OPT_OUT } from './regions-helpers.ts';

/**
 * Material changes, docs/regions.md: a returning visitor is asked again only after a
 * material change (the service's consentRequiredSince) or after the channel's consentMaxAgeDays.
 */
describe.skipIf(skipWith(browserSkipReason))('browser SDK in Chromium: when a visitor is asked again', () => {
  const f = sdkFixture();
  const { recorded, ran, decisions } = f;
  const { channel, siteWithRules, visitFrom, configFor } = regionHelpers(f);

  it('consentMaxAgeDays from the config: a 30-day channel asks again after 31 days, and the cookie lives 30 days', async () => {
    const site = await createSite(f.t, f.key, f.pages.origin);
    const res = await f.t.http.patch(channel(site), { key: f.key, body: { consentMaxAgeDays: 30 } });
    expect(res.status, res.text).toBe(200);
    const { context, page } = await visitFrom(site, 'FR');
    await page.click(action('reject-all'));
    await recorded(context, site, 1);
    const cookie = (await context.cookies()).find((c) => c.name === `cs_consent_${site.siteKey}`);
    const lifetimeDays = (cookie!.expires * 1000 - Date.now()) / DAY_MS;
    expect(lifetimeDays).toBeGreaterThan(29.9);
    expect(lifetimeDays).toBeLessThanOrEqual(30);

    await context.clock.setFixedTime(new Date(Date.now() + 29 * DAY_MS));
    const within = await context.newPage();
    await within.goto(page.url());
    await within.waitForFunction(`${settled} || !!document.querySelector('${BANNER}')`);
    expect(await within.locator(BANNER).count()).toBe(0);

    // The page clock moves, the browser's cookie store does not: the cookie is still there, and what
    // asks again is the SDK's own check of the decision's age.
    await context.clock.setFixedTime(new Date(Date.now() + 31 * DAY_MS));
    const later = await context.newPage();
    await later.goto(page.url());
    await later.locator(BANNER).waitFor();
    expect(await decisions(later)).toBeNull();
    await context.close();
  });

  /** Decides in the banner as a visitor from FR and returns the cookies to come back with. */
  async function decidedInFrance(site: Site) {
    const first = await visitFrom(site, 'FR');
    await first.page.click(action('customize'));
    await first.page.check('input[data-consent-purpose="analytics"]');
    await first.page.click(action('save'));
    await recorded(first.context, site, 1);
    const storageState = await first.context.storageState();
    await first.context.close();
    return storageState;
  }

  /** The channel's configVersion after a change, past the service's 5 s site cache. */
  async function versionAfterChange(site: Site) {
    f.t.clock.advance(6000);
    const res = await f.t.http.get(channel(site), { key: f.key });
    expect(res.body.data.configVersion).toBeGreaterThan(site.configVersion);
    return res.body.data.configVersion as number;
  }

  it('a returning visitor is not asked again after a translation-only change, and is after a new purpose', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const storageState = await decidedInFrance(site);
    const chosen = { necessary: 'granted', analytics: 'granted', marketing: 'denied' };

    const { consentRequiredSince } = await configFor(site, 'FR');
    const purposes = (await f.t.http.get(`${channel(site)}/purposes`, { key: f.key })).body.data;
    const analytics = purposes.find((p: { key: string }) => p.key === 'analytics');
    const translations = {
      de: { name: 'Statistik', description: null },
      fr: { name: 'Mesure d’audience', description: null },
    };
    const translated = await f.t.http.patch(`${channel(site)}/purposes/${analytics.id}`, {
      key: f.key,
      body: { translations },
    });
    expect(translated.status, translated.text).toBe(200);
    const afterTranslation = await versionAfterChange(site);
    // The service calls it not material: the stored decision (for site.configVersion) still holds.
    expect(await configFor(site, 'FR')).toMatchObject({
      configVersion: afterTranslation,
      consentRequiredSince,
    });
    expect(consentRequiredSince).toBeLessThanOrEqual(site.configVersion);

    const back = await visitFrom(site, 'FR', { storageState });
    // Settled one way or the other: the stored decision applied, or the banner asking again.
    await back.page.waitForFunction(`${settled} || !!document.querySelector('${BANNER}')`);
    expect(await back.page.locator(BANNER).count()).toBe(0);
    expect(await decisions(back.page)).toEqual(chosen);
    expect(await back.page.evaluate('window.changes')).toEqual([
      { decisions: chosen, configVersion: afterTranslation },
    ]);
    await expect.poll(() => ran(back.page)).toHaveLength(3);
    await recorded(back.context, site, 1); // nothing new recorded
    await back.context.close();

    const added = await f.t.http.post(`${channel(site)}/purposes`, {
      key: f.key,
      body: { key: 'personalisation', name: 'Personalisation' },
    });
    expect(added.status, added.text).toBe(201);
    const afterPurpose = await versionAfterChange({ ...site, configVersion: afterTranslation });
    expect((await configFor(site, 'FR')).consentRequiredSince).toBe(afterPurpose);

    const again = await visitFrom(site, 'FR', { storageState });
    await again.page.locator(BANNER).waitFor();
    expect(await decisions(again.page)).toBeNull();
    expect(await ran(again.page)).toEqual(['page']);
    await again.page.click(action('customize'));
    expect(await again.page.isChecked('input[data-consent-purpose="analytics"]')).toBe(true);
    expect(await again.page.isChecked('input[data-consent-purpose="personalisation"]')).toBe(false);
    await again.page.click(action('accept-all'));
    const [latest] = await recorded(again.context, site, 2);
    expect(latest).toMatchObject({ configVersion: afterPurpose, regime: 'opt-in', region: 'FR' });
    await again.context.close();
  });
});
