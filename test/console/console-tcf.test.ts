import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { buildVendorList, TEST_VENDORS, type VendorListServer } from '../helpers/gvl.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import {
  browserSkipReason,
  eventually,
  expectNoHorizontalOverflow,
  openBrowser,
  openView,
  SHOTS,
  signedInMember,
  textOf,
} from './console-browser.ts';

/**
 * The channel page's IAB TCF section (docs/guides/tcf.md), through the real console in Chromium:
 * before the worker has a vendor list (said, with what to do), then vendors picked by search and
 * saved with PATCH, shown again after a reload, the API's 422s at their fields and vendors, the
 * preview of both layers, and axe-core over the section in each state.
 */
describe.skipIf(skipWith(browserSkipReason))('console IAB TCF section in Chromium', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let page: Page;
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    // No list yet: the first test sees the section before the worker's first fetch.
    ({ t, gvl } = await startTcfTestApp({
      env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' },
      load: false,
    }));
    browser = await openBrowser();
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey, { name: 'News Site' });
    page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
  });
  afterAll(async () => {
    console.log(`console TCF section axe violations (wcag2a, wcag2aa, wcag21aa): ${JSON.stringify(counts)}`);
    await browser?.close();
    await t?.close();
  });

  const channelNow = async () => {
    const res = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  };
  const tcfSection = () => page.locator('section.tcf-section').first();
  const chosen = () => page.getByRole('list', { name: 'Chosen vendors' });
  const found = () => page.getByRole('list', { name: 'Vendors found' });

  async function openChannel() {
    await openView(page, 'Channels');
    await page.getByRole('button', { name: 'Open News Site' }).click();
    await page.getByRole('heading', { name: 'Channel: News Site' }).waitFor();
    await page.getByRole('heading', { name: 'IAB TCF', exact: true }).waitFor();
  }

  async function expectAccessible(name: string) {
    const violations = await axeViolations(page, '.tcf-section');
    counts[name] = violations.length;
    await page.screenshot({
      timeout: 20_000,
      path: `${SHOTS}/tcf-${name.replace(/\W+/g, '-')}.png`,
      fullPage: true,
    });
    expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
  }

  async function search(q: string) {
    await page.getByLabel('Search vendors by name').fill(q);
    await page.getByRole('button', { name: 'Search vendors' }).click();
    await eventually(() => textOf(tcfSection())).toContain(`"${q}"`);
  }

  /** A sign-in runs scrypt and axe takes seconds per run on 2 shared cores. */
  const TIMEOUT = 120_000;

  it(
    'before the first vendor list: says so, with what to do, and offers no form',
    async () => {
      await openChannel();
      const said = await textOf(tcfSection());
      expect(said).toContain('TCF_GVL_URL');
      expect(said).toContain('This channel does not run as a TCF CMP.');
      expect(await page.getByRole('form', { name: 'TCF settings' }).count()).toBe(0);
      // A state of the service, not an error of the page: the view has no alert for it.
      expect(await page.locator('.tcf-section .message.error:not([hidden])').count()).toBe(0);
      await expectAccessible('no vendor list');
    },
    TIMEOUT,
  );

  it(
    'picks vendors by search, saves them with PATCH, and shows them after a reload',
    async () => {
      expect((await refreshVendorList(t))?.lastSuccessAt).toBeTruthy();
      await page.reload();
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
      await openChannel();
      expect(await textOf(tcfSection())).toContain('IAB vendor list version 100');

      await page.getByLabel('CMP id').fill('300');
      await page.getByLabel('Publisher country').fill('fr');
      await search('trade');
      // Each vendor found shows what it declares, by name.
      const tradeDesk = found().getByRole('listitem').filter({ hasText: 'The Trade Desk' });
      expect(await textOf(tradeDesk)).toContain('3. Create profiles for personalised advertising');
      expect(await textOf(tradeDesk)).toContain('11. Use limited data to select content');
      expect(await textOf(tradeDesk)).toContain('1. Use precise geolocation data');
      expect(await found().getByRole('listitem').count()).toBe(1);
      await page.getByRole('button', { name: 'Add The Trade Desk' }).click();
      await eventually(() => textOf(chosen())).toContain('The Trade Desk');
      expect(await textOf(tradeDesk)).toContain('Chosen.');
      // Enter in the search field searches; it does not save the form around it.
      await page.getByLabel('Search vendors by name').fill('emerse');
      await page.getByLabel('Search vendors by name').press('Enter');
      await eventually(() => textOf(found())).toContain('Emerse Sverige AB');
      expect((await channelNow()).tcf ?? null).toBeNull();
      await page.getByRole('button', { name: 'Add Emerse Sverige AB' }).click();
      await search('xandr');
      await page.getByRole('button', { name: 'Add Xandr, Inc.' }).click();
      await page.getByRole('button', { name: 'Remove Emerse Sverige AB' }).click();
      await eventually(() => textOf(chosen())).not.toContain('Emerse');

      // The preview follows the form before saving.
      const preview = page.locator('section.tcf-section').filter({ hasText: 'Preview of the TCF layers' });
      await eventually(() => textOf(preview)).toContain('2 vendors');
      // Folded as the layers fold it: stack 3 (purposes 2–4) named once, then what no stack covers.
      const firstLayer = preview.getByRole('list', { name: 'Named in the first layer' });
      expect(await firstLayer.getByRole('listitem').allTextContents()).toEqual([
        'Stack 3: Personalised advertising',
        '1. Store and/or access information on a device',
        '5. Create profiles to personalise content',
        '6. Use profiles to select personalised content',
        '7. Measure advertising performance',
        '8. Measure content performance',
        '9. Understand audiences through statistics or combinations of data from different sources',
        '10. Develop and improve services',
        '11. Use limited data to select content',
        'Special feature 1. Use precise geolocation data',
      ]);
      // Purpose one treatment: the layers leave purpose 1 out, and the preview follows the checkbox.
      await page.getByLabel('Purpose one treatment').check();
      await eventually(() => textOf(firstLayer)).not.toContain('1. Store and/or access');
      expect(await textOf(preview)).toContain('not disclosed nor asked for');
      await page.getByLabel('Purpose one treatment').uncheck();
      await eventually(() => textOf(firstLayer)).toContain('1. Store and/or access');
      // Purpose 3 takes consent only; purpose 2 also allows an objection (The Trade Desk claims it).
      const second = await preview
        .getByRole('list', { name: 'Purposes in the second layer' })
        .getByRole('listitem')
        .allTextContents();
      expect(second).toContain('3. Create profiles for personalised advertising: consent');
      expect(second).toContain(
        '2. Use limited data to select advertising: consent and objection to legitimate interest',
      );
      await expectAccessible('vendors picked');
      await expectNoHorizontalOverflow(page, 'TCF section, 1280');

      // The reopen control is on by default; turned off here, saved with the settings.
      expect(await page.getByLabel('Reopen control').isChecked()).toBe(true);
      await page.getByLabel('Reopen control').uncheck();
      await page.getByRole('button', { name: 'Save TCF settings' }).click();
      await eventually(() => textOf(page.locator('.tcf-section .message.ok'))).toContain(
        'TCF settings saved with 2 vendors',
      );
      const channel = await channelNow();
      expect(channel.reopenControl).toBe('none');
      expect(channel.tcf).toEqual({
        cmpId: 300,
        // Left empty: the service's TCF release.
        cmpVersion: null,
        vendorIds: [21, 32],
        publisherCountryCode: 'FR',
        purposeOneTreatment: false,
        publisherRestrictions: [],
        googleAdditionalConsent: null,
        unknownRegion: 'gdpr',
      });
      expect(channel.configVersion).toBeGreaterThan(site.configVersion);

      await page.reload();
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
      await openChannel();
      await eventually(() => textOf(chosen())).toContain('Xandr, Inc.');
      expect(await chosen().getByRole('listitem').count()).toBe(2);
      expect(await page.getByLabel('CMP id').inputValue()).toBe('300');
      expect(await page.getByLabel('CMP version').inputValue()).toBe('');
      expect(await page.getByLabel('Publisher country').inputValue()).toBe('FR');
      expect(await page.getByLabel('Reopen control').isChecked()).toBe(false);
      // A number pins the channel's own CMP version.
      await page.getByLabel('CMP version').fill('7');
      await page.getByRole('button', { name: 'Save TCF settings' }).click();
      await expect.poll(async () => (await channelNow()).tcf.cmpVersion, { timeout: 10_000 }).toBe(7);
    },
    TIMEOUT,
  );

  it(
    'shows a bad CMP id at its field before sending, and the API’s 422 at each vendor IAB deleted; nothing is saved',
    async () => {
      // IAB deletes Xandr (32) in version 101; the mirror stores it and the channel's vendor is refused.
      gvl.publish(
        buildVendorList({
          version: 101,
          vendors: TEST_VENDORS.map((v) => (v.id === 32 ? { ...v, deletedDate: '2026-02-01T00:00:00Z' } : v)),
        }),
      );
      await refreshVendorList(t);
      // (The new list re-snapshots the channel: what must not change is counted from here.)
      const before = await channelNow();
      await page.reload();
      await page.getByRole('navigation', { name: 'Console' }).waitFor();
      await openChannel();
      expect(await textOf(tcfSection())).toContain('IAB vendor list version 101');
      // The list leaves deleted vendors out: the channel's vendor 32 is shown by its id, to be removed.
      const xandr = chosen().getByRole('listitem').filter({ hasText: 'Vendor 32' });
      expect(await textOf(xandr)).toContain('Not in the newest vendor list');

      await page.getByLabel('CMP id').fill('1');
      await page.getByRole('button', { name: 'Save TCF settings' }).click();
      const cmpId = page.getByLabel('CMP id');
      await eventually(() => cmpId.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await cmpId.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
      expect(await textOf(page.locator(`[id="${errorId}"]`))).not.toBe('');
      await eventually(() => page.evaluate('document.activeElement.name')).toBe('cmpId');
      expect(await page.locator('.tcf-section .message.error:not([hidden])').count()).toBe(1);
      await expectAccessible('CMP id refused');

      await cmpId.fill('300');
      await page.getByRole('button', { name: 'Save TCF settings' }).click();
      await eventually(() => cmpId.getAttribute('aria-invalid')).toBeNull();
      await eventually(() => textOf(page.locator('.tcf-section .message.error:not([hidden])'))).toContain(
        '32',
      );
      expect(await xandr.getAttribute('aria-describedby')).toMatch(/-32-error$/);
      await expectAccessible('deleted vendor refused');
      expect(await channelNow()).toMatchObject({ configVersion: before.configVersion, tcf: before.tcf });

      // Removing it saves.
      await page.getByRole('button', { name: 'Remove Vendor 32' }).click();
      await page.getByRole('button', { name: 'Save TCF settings' }).click();
      await eventually(() => textOf(page.locator('.tcf-section .message.ok'))).toContain(
        'TCF settings saved with 1 vendor.',
      );
      expect((await channelNow()).tcf.vendorIds).toEqual([21]);
    },
    TIMEOUT,
  );

  it(
    'shows an analyst the settings and vendors without a form',
    async () => {
      const analyst = await signedInMember(t, browser, tenant.organizationId, 'analyst');
      const own = page;
      page = analyst.page;
      try {
        await openChannel();
        expect(await page.getByRole('form', { name: 'TCF settings' }).count()).toBe(0);
        const said = await textOf(tcfSection());
        expect(said).toContain('CMP id');
        expect(said).toContain('300');
        expect(await textOf(chosen())).toContain('The Trade Desk');
        await expectAccessible('analyst');
      } finally {
        await analyst.context.close();
        page = own;
      }
    },
    TIMEOUT,
  );
});
