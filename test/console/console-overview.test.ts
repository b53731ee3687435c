import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, SITE_ORIGIN, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
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

const require = createRequire(import.meta.url);
/** The privacy manager's screenshots (git-ignored, made by this run). */
const PRIVACY_SHOTS = 'test-results/console-shots';

/** The cells of a table region, row by row (header cells included), as the page shows them. */
async function cellsOf(page: Page, name: string): Promise<string[][]> {
  // The tables start closed under their charts: open them as a reader would. A chart drawn again
  // meanwhile (the answer for the range arriving late on a busy machine) starts closed again, so
  // open until the table shows.
  const region = page.getByRole('region', { name, exact: true });
  await eventually(async () => {
    await page.evaluate(
      `document.querySelectorAll('.chart-card details').forEach((d) => { d.open = true; })`,
    );
    return region.isVisible();
  }).toBe(true);
  return region.evaluate((el) =>
    [...el.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())),
  );
}

describe('console stylesheet', () => {
  it('carries uPlot’s own stylesheet, rule for rule, from the installed package', () => {
    const squash = (css: string) =>
      css
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\s+/g, '')
        .toLowerCase();
    const styles = fs.readFileSync('console/src/styles.css', 'utf8');
    const vendored = /\/\* uplot:begin \*\/([\s\S]*)\/\* uplot:end \*\//.exec(styles)?.[1] ?? '';
    const published = fs.readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    expect(squash(vendored)).toBe(squash(published));
  });
});

/**
 * The Overview view: a channel with a known mix of decisions and
 * impressions on four days of March 2026 (two ISO weeks, three regions), recorded with the manual
 * clock; the view's tables must show exactly those counts.
 */
describe.skipIf(skipWith(browserSkipReason))('console overview in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let owner: { email: string };
  let page: Page;
  const pageErrors: string[] = [];
  const analyticsCalls: string[] = [];
  // The file's present, read once: the service's clock and the page's are set to it, so "today" is
  // the same day for the page and for the checks even when the file runs past midnight (UTC).
  const present = new Date();

  beforeAll(async () => {
    t = await startTestApp({ env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
    browser = await openBrowser();
    tenant = await t.tenant();
    owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    site = await createReadySite(t, tenant.testKey, { name: 'Corner Shop' });
    const day = (d: number) => new Date(Date.UTC(2026, 2, d, 12));
    const decide = async (d: number, n: number, decisions: object, region: string, extra: object = {}) => {
      t.clock.set(day(d));
      for (let i = 0; i < n; i++) {
        const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=${region}`, {
          body: {
            subjectId: `sub-${d}-${region}-${i}`,
            decisions,
            configVersion: site.configVersion,
            ...extra,
          },
          headers: { origin: SITE_ORIGIN },
        });
        expect(res.status, res.text).toBe(201);
      }
    };
    const show = async (d: number, n: number, region: string) => {
      t.clock.set(day(d));
      for (let i = 0; i < n; i++) {
        const res = await t.http.post(`/v1/public/sites/${site.siteKey}/impressions?region=${region}`, {
          body: { configVersion: site.configVersion },
          headers: { origin: SITE_ORIGIN },
        });
        expect(res.status, res.text).toBe(204);
      }
    };
    const ALL = { analytics: 'granted', marketing: 'granted' };
    const NONE = { analytics: 'denied', marketing: 'denied' };
    const SOME = { analytics: 'granted', marketing: 'denied' };
    await decide(2, 12, ALL, 'FR'); // Monday 2 March
    await decide(3, 8, ALL, 'US-CA');
    await decide(3, 6, NONE, 'FR');
    await decide(10, 4, NONE, 'DE'); // the next week
    await decide(10, 7, SOME, 'FR');
    await decide(11, 3, NONE, 'US-CA', { source: 'gpc' });
    await show(2, 20, 'FR');
    await show(3, 15, 'US-CA');
    await show(3, 10, 'FR');
    await show(10, 5, 'DE');
    await show(10, 10, 'FR');
    await show(11, 4, 'US-CA');
    await t.app.services.analytics.flushImpressions();
    t.clock.set(present);

    page = (await newPage(browser, t.baseUrl)).page;
    // The page's Date reads the file's present (its timers still run).
    await page.clock.setFixedTime(present);
    page.on('console', (message) => {
      // Refused responses (the session probe before sign-in, the favicon) are expected; a CSP
      // refusal or a script error is not.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (request.url().includes('/v1/analytics/consent')) analyticsCalls.push(request.url());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function showRange(from: string, to: string) {
    await page.getByLabel('From', { exact: true }).fill(from);
    await page.getByLabel('To', { exact: true }).fill(to);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
  }

  it('is the first view after sign-in; its range starts at the channel’s first data, to today', async () => {
    await signInAs(page, owner.email, PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/overview');
    const links = page.getByRole('navigation', { name: 'Console' }).getByRole('link');
    expect(await links.first().textContent()).toBe('Overview');
    expect(await links.first().getAttribute('aria-current')).toBe('page');
    expect(await page.getByLabel('Channel', { exact: true }).inputValue()).toBe(site.channelId);
    // From the first day with data (Monday 2 March), not 30 days of empty axis; to today (UTC).
    // Once that day is past the API's longest range (366 days), the last 30 days, as before.
    const now = present.getTime();
    const today = new Date(now).toISOString().slice(0, 10);
    const inReach = Date.parse('2026-03-02T00:00:00Z') >= Date.parse(`${today}T00:00:00Z`) - 365 * 86_400_000;
    const first = inReach ? '2026-03-02' : new Date(now - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(first);
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(today);
    await page.getByRole('region', { name: `At a glance, ${first} to ${today}` }).waitFor();
    expect(analyticsCalls.at(-1)).toContain(`channelId=${site.channelId}`);
    expect(analyticsCalls.at(-1)).toContain(`from=${first}`);
  });

  it('shows the known mix: every table under a chart holds the exact counts; readable at 1280 and 360 px', async () => {
    await showRange('2026-03-01', '2026-03-12');
    // The last range's figures stay until this range's answers arrive, and hold the same totals (all
    // the data is in March): wait for the headline of this range, drawn with its figures.
    await page.getByRole('region', { name: 'At a glance, 2026-03-01 to 2026-03-12' }).waitFor();
    // Charts first; each table closed under its chart, its totals on the closed disclosure.
    const summaries = page.locator('.chart-card details:not([open]) > summary');
    await eventually(() => summaries.count()).toBe(4);
    expect(await summaries.first().textContent()).toBe(
      'Numbers: impressions and decisions (total: 64 impressions, 40 decisions)',
    );
    const activity = await cellsOf(page, 'Impressions and decisions per day');
    expect(activity[0]).toEqual(['Period', 'Impressions', 'Decisions', 'Decisions per impression']);
    expect(activity).toHaveLength(1 + 1 + 12); // header, total, 12 days (zeros included)
    // The total under the headings, then the newest period first.
    expect(activity.map((r) => r[0]).slice(0, 4)).toEqual(['Period', 'Total', '2026-03-12', '2026-03-11']);
    expect(activity.at(-1)?.[0]).toBe('2026-03-01');
    const rowOf = (table: string[][], head: string) => table.find((r) => r[0] === head);
    expect(rowOf(activity, '2026-03-01')).toEqual(['2026-03-01', '0', '0', '—']);
    expect(rowOf(activity, '2026-03-02')).toEqual(['2026-03-02', '20', '12', '60%']);
    expect(rowOf(activity, '2026-03-03')).toEqual(['2026-03-03', '25', '14', '56%']);
    expect(rowOf(activity, '2026-03-10')).toEqual(['2026-03-10', '15', '11', '73%']);
    expect(rowOf(activity, '2026-03-11')).toEqual(['2026-03-11', '4', '3', '75%']);
    expect(rowOf(activity, 'Total')).toEqual(['Total', '64', '40', '63%']);

    const outcomes = await cellsOf(page, 'Accept all, reject all and custom per day');
    expect(outcomes[0]).toEqual(['Period', 'Accept all', 'Reject all', 'Custom', 'Of which GPC']);
    expect(rowOf(outcomes, '2026-03-03')).toEqual(['2026-03-03', '8', '6', '0', '0']);
    expect(rowOf(outcomes, '2026-03-10')).toEqual(['2026-03-10', '0', '4', '7', '0']);
    expect(rowOf(outcomes, '2026-03-11')).toEqual(['2026-03-11', '0', '3', '0', '3']);
    expect(rowOf(outcomes, 'Total')).toEqual(['Total', '20', '13', '7', '3']);

    // Optional purposes only (Strictly necessary is always granted), by their names.
    const purposes = await cellsOf(page, 'Opt-in rate per purpose per day');
    expect(purposes[0]).toEqual(['Period', 'Analytics', 'Marketing']);
    expect(rowOf(purposes, '2026-03-01')).toEqual(['2026-03-01', '—', '—']);
    expect(rowOf(purposes, '2026-03-03')).toEqual(['2026-03-03', '57% (8 of 14)', '57% (8 of 14)']);
    expect(rowOf(purposes, '2026-03-10')).toEqual(['2026-03-10', '64% (7 of 11)', '0% (0 of 11)']);
    expect(rowOf(purposes, 'Total')).toEqual(['Total', '68% (27 of 40)', '50% (20 of 40)']);

    expect(await cellsOf(page, 'Decisions by region')).toEqual([
      ['Region', 'Impressions', 'Decisions', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
      ['FR', '40', '25', '12', '6', '7', '0'],
      ['US-CA', '19', '11', '8', '3', '0', '3'],
      ['DE', '5', '4', '0', '4', '0', '0'],
    ]);

    // Four charts, each an image with a name that says what it shows, drawn on a canvas.
    const charts = page.getByRole('img');
    expect(await charts.count()).toBe(4);
    expect(await charts.first().getAttribute('aria-label')).toBe(
      'Line chart of impressions and decisions per day, 2026-03-01 to 2026-03-12: 64 impressions, 40 decisions in all.',
    );
    await page
      .getByRole('img', { name: /^Bar chart of decisions by region.*FR 25, US-CA 11, DE 4\.$/ })
      .waitFor();
    await eventually(() => page.locator('.chart canvas').count()).toBe(4);
    await expectNoHorizontalOverflow(page, 'overview at 1280');
    await page.screenshot({ path: `${SHOTS}/overview-1280.png`, fullPage: true });

    await page.setViewportSize({ width: 360, height: 800 });
    // The charts redraw at the width of their box.
    await eventually(() =>
      page.evaluate(
        `Math.max(...[...document.querySelectorAll('.chart canvas')].map((c) => c.getBoundingClientRect().right))`,
      ),
    ).toBeLessThanOrEqual(360);
    await expectNoHorizontalOverflow(page, 'overview at 360');
    await page.screenshot({ path: `${SHOTS}/overview-360.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    // uPlot under the console's CSP (style-src 'self'): nothing refused, nothing thrown.
    expect(pageErrors).toEqual([]);
  });

  it('shows opt-in per purpose as cards beside the outcome rates, at 1280 and 390 px', async () => {
    await showRange('2026-03-01', '2026-03-12');
    const glance = page.getByRole('region', { name: 'At a glance, 2026-03-01 to 2026-03-12' });
    await glance.waitFor();
    const cards = glance.getByRole('list', { name: 'Opt-in per purpose' }).getByRole('listitem');
    // Optional purposes only, each with its share and its counts (the totals of the table above).
    await eventually(() => cards.allTextContents()).toEqual([
      '68%Opt-in: Analytics27 of 40',
      '50%Opt-in: Marketing20 of 40',
    ]);
    // Shown beside the outcome rates, not folded away in a closed disclosure.
    expect(await glance.getByText('Opt-in: Analytics').isVisible()).toBe(true);
    fs.mkdirSync(PRIVACY_SHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalOverflow(page, `overview opt-in cards at ${width}`);
      expect(await glance.getByText('Opt-in: Marketing').isVisible()).toBe(true);
      await page.screenshot({ path: `${PRIVACY_SHOTS}/overview-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('refetches when the interval or the range changes', async () => {
    const before = analyticsCalls.length;
    await page.getByLabel('Interval').selectOption('week');
    await eventually(() =>
      cellsOf(page, 'Impressions and decisions per week').then((rows) => rows.length),
    ).toBe(5);
    expect(analyticsCalls.slice(before).every((url) => url.includes('interval=week'))).toBe(true);
    expect(analyticsCalls.length - before).toBe(2); // the totals and groupBy=region
    expect(await cellsOf(page, 'Impressions and decisions per week')).toEqual([
      ['Period', 'Impressions', 'Decisions', 'Decisions per impression'],
      ['Total', '64', '40', '63%'],
      ['Week of 2026-03-09', '19', '14', '74%'],
      ['Week of 2026-03-02', '45', '26', '58%'],
      ['Week of 2026-02-23', '0', '0', '—'],
    ]);

    await page.getByLabel('Interval').selectOption('day');
    await showRange('2026-03-10', '2026-03-11');
    await eventually(() =>
      cellsOf(page, 'Impressions and decisions per day').then((rows) => rows.length),
    ).toBe(4);
    expect(analyticsCalls.at(-1)).toMatch(/from=2026-03-10&to=2026-03-11/);
    expect(await cellsOf(page, 'Decisions by region')).toEqual([
      ['Region', 'Impressions', 'Decisions', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
      ['FR', '10', '7', '0', '0', '7', '0'],
      ['DE', '5', '4', '0', '4', '0', '0'],
      ['US-CA', '4', '3', '0', '3', '0', '3'],
    ]);
  });

  it('shows the API’s 422 at the field for a bad range', async () => {
    const from = page.getByLabel('From', { exact: true });
    const errorText = async () => {
      const id = ((await from.getAttribute('aria-describedby')) ?? '')
        .split(' ')
        .find((p) => p.endsWith('-error'));
      return id ? textOf(page.locator(`[id="${id}"]`)) : '';
    };
    await showRange('2026-03-12', '2026-03-01');
    await eventually(() => from.getAttribute('aria-invalid')).toBe('true');
    expect(await errorText()).toBe('From must not be after `to`.');
    expect(await textOf(page.locator('.message.error:not([hidden])'))).toContain('must not be after `to`');
    expect(await page.getByRole('img').count()).toBe(0);
    expect(await page.evaluate('document.activeElement.name')).toBe('from');

    await showRange('2025-01-01', '2026-03-01');
    await eventually(() => errorText()).toBe('From the range may cover at most 366 days.');
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);

    // A good range clears the error.
    await showRange('2026-03-01', '2026-03-12');
    await eventually(() => from.getAttribute('aria-invalid')).toBe(null);
    await page.getByRole('img', { name: /^Bar chart of decisions by region/ }).waitFor();
  });

  it('axe finds nothing on the view with its charts, at 1280 and 360 px', async () => {
    await page.getByRole('img').first().waitFor();
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await eventually(() => page.locator('.chart canvas').count()).toBe(4);
      const violations = await axeViolations(page);
      expect(violations, `overview at ${width}:\n${describeViolations(violations)}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('says so when the organization has no channel yet', async () => {
    const other = await t.tenant();
    const { context, page: fresh } = await signedInMember(t, browser, other.organizationId, 'analyst');
    await fresh.getByRole('heading', { name: 'No channels yet' }).waitFor();
    expect(await fresh.getByRole('link', { name: 'Create a channel' }).getAttribute('href')).toBe(
      '#/channels',
    );
    await openView(fresh, 'Overview');
    await context.close();
  });
});
