import { describe, expect, it } from 'vitest';
import { skipWith } from '../helpers/skip.ts';
import { BANNER, sdkFixture } from './fixture.ts';
import { browserSkipReason } from './harness.ts';
import { CHOICES, LINK, NOTICE, regionHelpers, settled, US_OPT_OUT } from './regions-helpers.ts';

/**
 * California's regulations (§7025(c)(6)) ask a site to show that it honoured the
 * visitor's opt-out preference signal. With GPC in an opt-out region, the notice, the "Your Privacy
 * Choices" link and the preferences say "Opt-Out Request Honored" in the visitor's language, and the
 * GPC decision's evidence records that it was shown (`gpcHonoredShown: true`).
 */
const HONORED: Record<string, string> = {
  'en-US': 'Opt-Out Request Honored',
  'de-DE': 'Opt-out-Anfrage berücksichtigt',
};

describe.skipIf(skipWith(browserSkipReason))('"Opt-Out Request Honored" in Chromium', () => {
  const f = sdkFixture();
  const { siteWithRules, visitFrom, expectNoAxeViolations } = regionHelpers(f);

  it.each(Object.entries(HONORED))(
    'US-CA with GPC, %s: "%s" on the notice, the link and the preferences; the evidence says it was shown',
    async (locale, honored) => {
      const site = await siteWithRules(US_OPT_OUT);
      const { context, page } = await visitFrom(site, 'US-CA', { gpc: true, locale });
      await page.waitForFunction(settled);
      const [event] = await f.recorded(context, site, 1);
      expect(event).toMatchObject({ source: 'gpc', gpc: true, region: 'US-CA', gpcHonoredShown: true });
      expect(event.language).toBe(locale.slice(0, 2));

      await page.locator(NOTICE).waitFor();
      expect(await page.locator(NOTICE).textContent()).toContain(honored);
      // Dismissed: the persistent link carries the words after its label.
      await page.locator(`${NOTICE} [data-consent-action="dismiss"]`).click();
      const link = page.locator(LINK);
      await link.waitFor();
      expect(await link.locator('[data-consent-gpc]').textContent()).toBe(honored);
      await expectNoAxeViolations(page, LINK);
      await link.click();
      const view = page.locator(`${BANNER}[data-consent-view="customize"]`);
      await view.waitFor();
      expect(await view.textContent()).toContain(honored);

      // The next page: still honoured, the link says so again; nothing more recorded.
      await page.reload();
      await page.waitForFunction(settled);
      await page.locator(LINK).waitFor();
      expect(await page.locator(LINK).textContent()).toContain(honored);
      expect(await f.recorded(context, site, 1)).toHaveLength(1);
      await context.close();
    },
  );

  it('without GPC, and after an explicit opt-back-in, nothing says so and no event carries the member', async () => {
    const site = await siteWithRules(US_OPT_OUT);
    const plain = await visitFrom(site, 'US-CA');
    await plain.page.waitForFunction(settled);
    await plain.page.locator(NOTICE).waitFor();
    expect(await plain.page.locator(NOTICE).textContent()).not.toContain(HONORED['en-US']);
    await plain.page.locator(`${NOTICE} ${CHOICES}`).click();
    await plain.page.locator('input[data-consent-purpose="marketing"]').uncheck();
    await plain.page.click('[data-consent-action="save"]');
    const [optOut] = await f.recorded(plain.context, site, 1);
    expect(optOut.source).toBe('preference_center');
    expect(optOut).not.toHaveProperty('gpcHonoredShown');
    await plain.context.close();

    const gpc = await visitFrom(site, 'US-CA', { gpc: true });
    await gpc.page.waitForFunction(settled);
    await f.recorded(gpc.context, site, 1);
    await gpc.page.locator(`${NOTICE} ${CHOICES}`).click();
    await gpc.page.locator('input[data-consent-purpose="marketing"]').check();
    await gpc.page.click('[data-consent-action="save"]');
    const optIn = (await f.recorded(gpc.context, site, 2)).find((e) => e.source !== 'gpc');
    expect(optIn).toMatchObject({
      source: 'preference_center',
      gpc: true,
      decisions: { marketing: 'granted' },
    });
    expect(optIn).not.toHaveProperty('gpcHonoredShown');
    await gpc.page.locator(LINK).waitFor();
    expect(await gpc.page.locator(LINK).textContent()).not.toContain(HONORED['en-US']);
    await gpc.context.close();
  });
});
