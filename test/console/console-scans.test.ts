import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import {
  type FixtureSite,
  SDK_PAGE_LABELS,
  sdkFixturePage,
  startFixtureSite,
} from '../scans/fixture-site.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import {
  browserSkipReason,
  eventually,
  expectNoHorizontalOverflow,
  newPage,
  openBrowser,
  openView,
  SHOTS,
  signedInMember,
  signInAs,
  textOf,
} from './console-browser.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

/**
 * The channel view's tracker scans in Chromium: a scan run from the console, followed
 * until the worker finishes it, its findings grouped by phase with violations first, and an
 * undeclared finding added as a technology in one click. The scan itself drives a second Chromium
 * over a fixture site on 127.0.0.1 with the channel's real SDK.
 */
describe.skipIf(skipWith(browserSkipReason))('console tracker scans in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let fixture: FixtureSite;
  let page: Page;
  let thirdPartyHost: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        ...SITES_TEST_ENV,
        SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000',
        SCAN_ALLOW_PRIVATE_TARGETS: 'true',
        SCAN_PAGE_TIMEOUT_SECONDS: '20',
      },
    });
    browser = await openBrowser();
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey, { name: 'Scanned Shop' });
    fixture = await startFixtureSite({ page: sdkFixturePage(t.baseUrl, site.siteKey) });
    thirdPartyHost = new URL(fixture.thirdPartyOrigin).host;
    const post = (path: string, body: unknown) => t.http.post(path, { key: tenant.testKey, body });
    expect((await post(`/v1/channels/${site.channelId}/origins`, { origin: fixture.origin })).status).toBe(
      201,
    );
    const declared = await post(`/v1/channels/${site.channelId}/technologies`, {
      name: 'Inline analytics tag',
      purposeKeys: ['analytics'],
      cookies: [{ name: SDK_PAGE_LABELS.unblocked }, { name: SDK_PAGE_LABELS.blocked }],
    });
    expect(declared.status, declared.text).toBe(201);
    page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
    await t?.close();
  });

  const scansSection = () => page.getByRole('region', { name: 'Tracker scans' });
  const technologies = async () => {
    const res = await t.http.get(`/v1/channels/${site.channelId}/technologies?limit=100`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
    return res.body.data as Array<{
      name: string;
      vendor: string | null;
      purposeKeys: string[];
      cookies: { name: string }[];
      hosts: string[];
    }>;
  };

  it('runs a scan of a page, follows it until the worker finishes, and shows findings by phase', async () => {
    await openView(page, 'Channels');
    await page.getByRole('button', { name: 'Open Scanned Shop' }).click();
    await page.getByRole('heading', { name: 'Channel: Scanned Shop' }).waitFor();
    expect(await textOf(scansSection())).toContain('No scans yet.');

    await scansSection().getByLabel('Page URL').fill(fixture.origin);
    await scansSection().getByRole('button', { name: 'Run a scan' }).click();
    await eventually(() => textOf(scansSection().getByRole('status'))).toContain('A scan is queued');
    // One scan at a time: the form is gone while it is queued.
    expect(await scansSection().getByRole('button', { name: 'Run a scan' }).count()).toBe(0);

    // The worker runs it (Chromium over the fixture site); the view notices by itself.
    await t.worker.runDue();
    await eventually(() => textOf(scansSection())).toContain('After accept all');
    const text = await textOf(scansSection());
    expect(text).toContain('2 violations');
    // Counts in words that agree with them: "1 storage key", never "1 storage keys".
    expect(text).toMatch(/\d+ cookies?, \d+ storage keys?, \d+ third-party requests? on /);
    expect(text).not.toMatch(/\b1 (cookies|storage keys|third-party requests)\b/);
    expect(text).toContain('The banner applied opt-in regime');

    // Three groups, in phase order, each a table whose violations come first.
    const headings = await scansSection().getByRole('heading', { level: 4 }).allTextContents();
    expect(headings.map((h) => h.split(':')[0])).toEqual([
      'Before consent',
      'After reject all',
      'After accept all',
    ]);
    expect(headings[0]).toContain('2 violations');
    expect(headings[2]).not.toContain('violation');
    const before = scansSection().getByRole('region', { name: 'Findings before consent' });
    const verdicts = await before.locator('tbody tr td:first-child').allTextContents();
    expect(verdicts.slice(0, 2)).toEqual(['violation', 'violation']);
    expect(verdicts.slice(2).every((v) => v === 'ok')).toBe(true);
    const rowOf = (name: string) =>
      before.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
    expect(await textOf(rowOf(SDK_PAGE_LABELS.unblocked))).toContain('Inline analytics tag (analytics)');
    expect(await textOf(rowOf('_ga'))).toMatch(/Undeclared.*Analytics · Google/);
    expect(await textOf(rowOf(thirdPartyHost))).toContain('Third party');
    // A request says its resource type; the service's own requests say whose they are.
    expect(await textOf(rowOf(thirdPartyHost))).toMatch(/Request \(\w+\)/);
    const ownRequests = scansSection().getByRole('row').filter({ hasText: 'This service’s request (' });
    expect(await ownRequests.count()).toBeGreaterThan(0);
    expect(await textOf(ownRequests.first())).toMatch(/This service’s request \((script|fetch|xhr)\)/);
    // The banner's own cookie (set by the accept click) is the service's: named so, nothing to declare.
    const own = scansSection()
      .getByRole('region', { name: 'Findings after accept all' })
      .getByRole('row')
      .filter({ has: page.getByText(/^cs_consent_/) });
    expect(await textOf(own.first())).toContain('This service’s banner');
    expect(await own.first().getByRole('button').count()).toBe(0);
    // The declared and blocked cookie is seen only after accept.
    expect(await rowOf(SDK_PAGE_LABELS.blocked).count()).toBe(0);
    const afterAccept = scansSection().getByRole('region', { name: 'Findings after accept all' });
    expect(await textOf(afterAccept)).toContain(SDK_PAGE_LABELS.blocked);

    await page.screenshot({ path: `${SHOTS}/scans-findings-1280.png`, fullPage: true });
    await expectNoHorizontalOverflow(page, 'channel with scan findings, 1280');
  }, 180_000);

  it('a scan with violations is a next step on the channel page, linking to the scan', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Channel: Scanned Shop' }).waitFor();
    const steps = page
      .locator('section')
      .filter({ has: page.getByRole('heading', { name: 'Next steps', exact: true }) })
      .locator('li')
      .filter({ hasText: 'The last scan found 2 violations' });
    await eventually(() => steps.count()).toBe(1);
    expect(await steps.locator('a').getAttribute('href')).toBe(`#/channels/${site.channelId}/tracker-scans`);
    await eventually(() => textOf(scansSection())).toContain('After accept all');
  });

  it('adds an undeclared finding as a technology in one click, with its vendor and purpose', async () => {
    const before = scansSection().getByRole('region', { name: 'Findings before consent' });
    await before.getByRole('button', { name: 'Add _ga as a technology' }).click();
    await eventually(() => textOf(scansSection().locator('.message.ok'))).toContain('Added "Google');
    const ga = (await technologies()).find((tech) => tech.cookies.some((c) => c.name === '_ga'));
    expect(ga).toMatchObject({ vendor: expect.stringMatching(/Google/), purposeKeys: ['analytics'] });
    expect(ga?.hosts).toEqual([]);

    // A third-party request becomes a technology by its host, port included; no purpose is guessed.
    await scansSection()
      .getByRole('region', { name: 'Findings before consent' })
      .getByRole('button', { name: `Add ${thirdPartyHost} as a technology` })
      .click();
    await eventually(async () =>
      (await technologies()).some((tech) => tech.hosts.includes(thirdPartyHost)),
    ).toBe(true);
    const pixel = (await technologies()).find((tech) => tech.hosts.includes(thirdPartyHost));
    expect(pixel).toMatchObject({ name: thirdPartyHost, vendor: null, purposeKeys: [], cookies: [] });

    // The scan stays as it was (it is evidence of that moment); its rows say what declares them now,
    // in every phase, and offer no second click.
    const rows = scansSection()
      .getByRole('row')
      .filter({ has: page.getByText('_ga', { exact: true }) });
    await eventually(() => textOf(rows.first())).toContain('Undeclared when scanned; now Google');
    expect(await scansSection().getByRole('button', { name: 'Add _ga as a technology' }).count()).toBe(0);
    expect(
      await scansSection()
        .getByRole('button', { name: `Add ${thirdPartyHost} as a technology` })
        .count(),
    ).toBe(0);
    expect(await textOf(page.getByRole('region', { name: 'Technologies' }))).toContain(thirdPartyHost);
  }, 60_000);

  it('has no axe violations with findings on the page', async () => {
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  }, 120_000);

  it('shows an analyst the findings without the run form or the add buttons', async () => {
    const analyst = await memberWithPassword(t, tenant.organizationId, 'analyst');
    const own = (await newPage(browser, t.baseUrl)).page;
    await signInAs(own, analyst.email, PASSWORD);
    await openView(own, 'Channels');
    await own.getByRole('button', { name: 'Open Scanned Shop' }).click();
    const section = own.getByRole('region', { name: 'Tracker scans' });
    await eventually(() => textOf(section)).toContain('After accept all');
    expect(await section.getByRole('button', { name: 'Run a scan' }).count()).toBe(0);
    expect(await section.getByRole('button', { name: /as a technology$/ }).count()).toBe(0);
    await own.context().close();
  }, 60_000);
});
