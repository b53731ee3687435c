import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxLocation } from '../../src/shared/first-party-proxy.ts';
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
 * The channel page's "Keep the choice" section (docs/guides/keep-the-choice.md), through the real
 * console in Chromium: the first-party path, cookie domain, handoffs and imports saved with one
 * PATCH; the nginx location to copy, made with the channel's path and the service's address; the
 * API's refusal (a public suffix) shown at the form; axe-core over the section.
 */
describe.skipIf(skipWith(browserSkipReason))('console Keep the choice in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
    browser = await openBrowser();
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey, { name: 'Bakery' });
    page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const section = () => page.locator('section.keep-the-choice');

  it('saves the four settings, shows the nginx location to copy, and the API’s refusal', async () => {
    await openView(page, 'Channels');
    await page.getByRole('button', { name: 'Open Bakery' }).click();
    await page.getByRole('heading', { name: 'Keep the choice', exact: true }).waitFor();
    expect(await textOf(section())).toContain('No first-party path');
    const violations = await axeViolations(page, '.keep-the-choice');
    expect(violations, describeViolations(violations)).toEqual([]);

    // A public suffix is refused by the API; its detail is shown and nothing is saved.
    await section().getByLabel('Cookie domain').fill('co.uk');
    await section().getByRole('button', { name: 'Save' }).click();
    await eventually(async () => await textOf(section().getByRole('alert'))).toContain('public suffix');
    expect(
      (await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey })).body.data.cookieDomain,
    ).toBeNull();

    await section().getByLabel('Cookie domain').fill('');
    await section().getByLabel('First-party path').fill('/consent');
    await section().getByLabel('Hand the choice over to the other domains').check();
    await section()
      .getByLabel('Import from OneTrust (OptanonConsent)')
      .fill('C0002=analytics, C0004=marketing');
    await section().getByLabel('Import from IAB TCF (euconsent-v2)').fill('1=analytics');
    await section().getByRole('button', { name: 'Save' }).click();
    await eventually(async () => {
      const res = await t.http.get(`/v1/channels/${site.channelId}`, { key: tenant.testKey });
      return res.body.data;
    }).toMatchObject({
      firstPartyPath: '/consent',
      cookieDomain: null,
      crossDomain: true,
      imports: [
        { from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } },
        { from: 'tcf', purposes: { '1': 'analytics' } },
      ],
    });

    // After the redraw: the nginx location for this path and this service, and the form as saved.
    const copy = section().getByLabel(
      'nginx: forward the path to this service (put it in your site’s server block)',
    );
    await eventually(async () => (await copy.count()) > 0).toBe(true);
    expect(await copy.inputValue()).toBe(nginxLocation('/consent', t.config.baseUrl));
    expect(await section().getByLabel('Import from OneTrust (OptanonConsent)').inputValue()).toBe(
      'C0002=analytics, C0004=marketing',
    );
    expect(await section().getByLabel('Hand the choice over to the other domains').isChecked()).toBe(true);
    // The snippet to paste now loads the SDK through the path; the direct one is offered beside it.
    expect(await page.getByLabel('Snippet HTML', { exact: true }).inputValue()).toContain(
      `src="/consent/v1/public/sites/${site.siteKey}/sdk.js"`,
    );
    expect(await page.getByLabel('Snippet HTML without the first-party path').inputValue()).toContain(
      `${t.config.baseUrl}/v1/public/sites/${site.siteKey}/sdk.js`,
    );
    const again = await axeViolations(page, '.keep-the-choice');
    expect(again, describeViolations(again)).toEqual([]);
  }, 120_000);
});
