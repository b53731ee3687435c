import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import {
  browserSkipReason,
  eventually,
  openBrowser,
  openView,
  signedInMember,
  textOf,
} from './console-browser.ts';

/**
 * The channel page's "US and Microsoft signals" section, through the real console in
 * Chromium: per region of the channel's rules, the GPP section a visitor there gets, under each mode;
 * gppSections and both integrations saved; axe-core over the section.
 */
describe.skipIf(skipWith(browserSkipReason))('console US and Microsoft signals in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
    browser = await openBrowser();
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey, { name: 'Bakery', gppCmpId: 300 });
    const res = await t.http.patch(`/v1/channels/${site.channelId}`, {
      key: tenant.testKey,
      body: {
        regionRules: [
          { regions: ['US-CA', 'US-NY'], regime: 'opt-out' },
          { regions: ['US'], regime: 'opt-out' },
          { regions: ['*'], regime: 'opt-in' },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const section = () => page.locator('section.us-signals');
  /** The table's rows as "region regime gets". */
  const rows = async () =>
    (await section().locator('tbody tr').allTextContents()).map((row) => row.replace(/\s+/g, ' ').trim());

  it('shows each region’s GPP section, saves "state" and both integrations, then shows the state sections', async () => {
    await openView(page, 'Channels');
    await page.getByRole('button', { name: 'Open Bakery' }).click();
    await page.getByRole('heading', { name: 'US and Microsoft signals', exact: true }).waitFor();
    expect(await rows()).toEqual([
      'US-CAopt-outusnat',
      'US-NYopt-outusnat',
      'USopt-outusnat',
      '*opt-inNone: GPP is for US opt-out regions',
    ]);
    const violations = await axeViolations(page, '.us-signals');
    expect(violations, describeViolations(violations)).toEqual([]);

    await section().getByLabel('GPP sections for US visitors').selectOption('state');
    await section().getByLabel('Microsoft UET consent mode').check();
    await section().getByLabel('Microsoft Clarity consent (consentv2)').check();
    await section().getByRole('button', { name: 'Save' }).click();
    await eventually(async () => {
      const res = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
      return res.body.data;
    }).toMatchObject({ gppSections: 'state', integrations: { microsoftUet: true, microsoftClarity: true } });
    await eventually(async () => (await rows())[0]).toBe('US-CAopt-outusca');
    const after = await rows();
    expect(after[1]).toBe('US-NYopt-outusnat');
    expect(after[2]).toMatch(/^USopt-outTheir state's own section where it has one \(usca, usva, .*usri\)/);
    expect(await textOf(section())).toContain('Microsoft UET: on. Clarity: on.');
    expect(await section().getByLabel('GPP sections for US visitors').inputValue()).toBe('state');
    const again = await axeViolations(page, '.us-signals');
    expect(again, describeViolations(again)).toEqual([]);
  }, 120_000);
});
