import fs from 'node:fs';
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
  signInAs,
  textOf,
} from './console-browser.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

const DAY = 86_400_000;
/**
 * The file's present, read once: the service's clock and the page's are set to it, so the page's
 * "today" is this one even when the file runs past midnight (UTC).
 */
const PRESENT = new Date();
const TODAY = Date.UTC(PRESENT.getUTCFullYear(), PRESENT.getUTCMonth(), PRESENT.getUTCDate());
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The first day with data (40 days ago) and a later one: the default range must start at the first. */
const FIRST = TODAY - 40 * DAY;
const LATER = TODAY - 10 * DAY;
const WIDTHS = [1280, 375];

/**
 * The console as a privacy manager reads it. A channel with decisions on two days
 * (8 accept all, 3 reject all, 1 custom), a renamed purpose and an added technology (two config
 * versions after the first), its evidence sealed in the ledger; Overview, the channel page and an
 * opened evidence event are each checked by what they show, then by axe-core at 1280 and 375 px.
 */
describe.skipIf(skipWith(browserSkipReason))('the console at a glance (Chromium)', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let site: ReadySite;
  let owner: { email: string };
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { ...SITES_TEST_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' } });
    browser = await openBrowser();
    tenant = await t.tenant();
    owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    site = await createReadySite(t, tenant.testKey, { name: 'Corner Shop' });
    const decide = async (day: number, n: number, decisions: object) => {
      t.clock.set(new Date(day + 12 * 3600_000));
      for (let i = 0; i < n; i++) {
        const res = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=FR`, {
          body: {
            subjectId: `sub-${day}-${i}-${Object.values(decisions).join()}`,
            decisions,
            configVersion: site.configVersion,
          },
          headers: { origin: SITE_ORIGIN },
        });
        expect(res.status, res.text).toBe(201);
      }
      const shown = await t.http.post(`/v1/public/sites/${site.siteKey}/impressions?region=FR`, {
        body: { configVersion: site.configVersion },
        headers: { origin: SITE_ORIGIN },
      });
      expect(shown.status, shown.text).toBe(204);
    };
    await decide(FIRST, 6, { analytics: 'granted', marketing: 'granted' });
    await decide(FIRST, 3, { analytics: 'denied', marketing: 'denied' });
    await decide(LATER, 2, { analytics: 'granted', marketing: 'granted' });
    await decide(LATER, 1, { analytics: 'granted', marketing: 'denied' });
    await t.app.services.analytics.flushImpressions();
    t.clock.set(PRESENT);
    const key = tenant.testKey;
    const purposes = await t.http.get(`/v1/channels/${site.channelId}/purposes`, { key });
    const analytics = purposes.body.data.find((p: { key: string }) => p.key === 'analytics');
    const renamed = await t.http.patch(`/v1/channels/${site.channelId}/purposes/${analytics.id}`, {
      key,
      body: { name: 'Audience measurement' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const tech = await t.http.post(`/v1/channels/${site.channelId}/technologies`, {
      key,
      body: { name: 'Plausible', purposeKeys: ['analytics'] },
    });
    expect(tech.status, tech.text).toBe(201);
    await t.app.services.ledger.sealer.sealAll();

    page = (await newPage(browser, t.baseUrl)).page;
    // The page's Date reads the file's present (its timers still run).
    await page.clock.setFixedTime(PRESENT);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInAs(page, owner.email, PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** axe at both widths, a full-page screenshot of each (test-results/console/glance-…). */
  async function checkAtWidths(name: string, ready: () => Promise<unknown>) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await ready();
      await expectNoHorizontalOverflow(page, `${name} at ${width}`);
      await page.screenshot({ path: `${SHOTS}/glance-${name}-${width}.png`, fullPage: true });
      const violations = await axeViolations(page);
      expect(violations, `${name} at ${width}:\n${describeViolations(violations)}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('Overview opens on the first data, headline figures first, days in ISO', async () => {
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const from = page.getByLabel('From', { exact: true });
    expect(await from.inputValue()).toBe(isoDay(FIRST));
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(isoDay(TODAY));
    // A text field in ISO, not the browser's locale format of <input type="date">.
    expect(await from.getAttribute('type')).toBe('text');
    const glance = page.getByRole('region', { name: `At a glance, ${isoDay(FIRST)} to ${isoDay(TODAY)}` });
    await glance.waitFor();
    const tiles = await glance
      .locator('li')
      .evaluateAll((items) => items.map((li) => [...li.children].map((c) => c.textContent)));
    expect(tiles).toEqual([
      ['12', 'Decisions', '4 banners shown'],
      ['67%', 'Accept all', '8 of 12'],
      ['25%', 'Reject all', '3 of 12'],
      ['8%', 'Custom', '1 of 12'],
      // Opt-in per optional purpose, by the purpose's name, beside the outcome rates.
      ['75%', 'Opt-in: Audience measurement', '9 of 12'],
      ['67%', 'Opt-in: Marketing', '8 of 12'],
    ]);
    // Before the pickers, then what the channel is missing, then the charts.
    await page.getByRole('heading', { name: 'Next steps', exact: true }).waitFor();
    const order = await page.evaluate(
      `[...document.querySelectorAll('main h2')].map((h) => h.textContent).slice(0, 4)`,
    );
    expect(order).toEqual([
      `At a glance, ${isoDay(FIRST)} to ${isoDay(TODAY)}`,
      'Channel and dates',
      'Next steps',
      'Impressions and decisions',
    ]);
    // The first day of the table is the first day with data, not 30 days of zeros before it.
    await page.evaluate(
      `document.querySelectorAll('.chart-card details').forEach((d) => { d.open = true; })`,
    );
    const days = await page
      .getByRole('region', { name: 'Impressions and decisions per day', exact: true })
      .locator('tbody th')
      .allTextContents();
    expect(days.at(-1)).toBe(isoDay(FIRST));
    await page.evaluate(
      `document.querySelectorAll('.chart-card details').forEach((d) => { d.open = false; })`,
    );
    await checkAtWidths('overview', () => eventually(() => page.locator('.chart canvas').count()).toBe(4));

    // The config versions published in the range, named under the charts and marked on each time
    // chart: newest first, the technology, then the rename.
    const changes = page.locator('section', {
      has: page.getByRole('heading', { name: 'Config changes in this range' }),
    });
    const items = await changes.locator('li').allTextContents();
    expect(items[0]).toMatch(/^v\d+ published .*: Technology Plausible added$/);
    expect(items[1]).toMatch(/^v\d+ published .*: Purpose analytics: name changed$/);
    const newest = items[0].split(' ')[0];
    const activity = page.getByRole('img', { name: /^Line chart of impressions and decisions/ });
    const said = await activity.getAttribute('aria-label');
    expect(said).toContain('Dashed lines mark the config versions published: v');
    // Versions of one day share the day's line: v1–v6, or v5, v6.
    expect(said).toMatch(new RegExp(`[–, ]${newest}\\.$`));
    expect(await textOf(page.locator('.chart-legend').first())).toContain('Config version published');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await eventually(() => page.locator('.chart canvas').count()).toBe(4);
      await page.screenshot({ path: `test-results/console-shots/overview-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Two days: one tick per day, each date once (uPlot's own steps labelled every few hours with
    // the same date).
    await page.getByLabel('From', { exact: true }).fill(isoDay(LATER - DAY));
    await page.getByLabel('To', { exact: true }).fill(isoDay(LATER));
    await page.getByRole('button', { name: 'Show' }).click();
    const ticks = () => activity.getAttribute('data-x-ticks');
    await eventually(ticks).toBe(`${isoDay(LATER - DAY)} ${isoDay(LATER)}`);
    // A week of days at 390 px: fewer ticks than days, none repeated.
    await page.getByLabel('From', { exact: true }).fill(isoDay(LATER - 6 * DAY));
    await page.getByRole('button', { name: 'Show' }).click();
    await page.setViewportSize({ width: 390, height: 900 });
    await eventually(async () => ((await ticks()) ?? '').split(' ')[0]).toBe(isoDay(LATER - 6 * DAY));
    const narrow = ((await ticks()) ?? '').split(' ');
    expect(new Set(narrow).size).toBe(narrow.length);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the channel page has an index of its sections, and each config version says what changed', async () => {
    await openView(page, 'Channels');
    await page.getByRole('button', { name: 'Open Corner Shop' }).click();
    await page.getByRole('heading', { name: 'Channel: Corner Shop' }).waitFor();
    const index = page.getByRole('navigation', { name: 'Sections of this channel' });
    const links = await index.getByRole('link').allTextContents();
    expect(links.length).toBeGreaterThanOrEqual(10);
    expect(links).toEqual(expect.arrayContaining(['Snippet', 'Purposes', 'Origins', 'Config versions']));
    await index.getByRole('link', { name: 'Config versions' }).click();
    expect(new URL(page.url()).hash).toBe(`#/channels/${site.channelId}/config-versions`);
    await eventually(() => page.evaluate('document.activeElement.textContent')).toBe('Config versions');
    const rows = await page
      .getByRole('region', { name: 'Config versions' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => (tr.children[2].textContent ?? '').trim()));
    // Newest first: the technology, then the rename, …, the first version.
    expect(rows[0]).toBe('Technology Plausible added');
    expect(rows[1]).toBe('Purpose analytics: name changed');
    expect(rows.at(-1)).toBe('First version');

    // The section's address opens the page there (a reload, a bookmark).
    await page.reload();
    await page.getByRole('heading', { name: 'Config versions' }).waitFor();
    await eventually(() =>
      page.getByRole('heading', { name: 'Config versions' }).evaluate((h) => h.getBoundingClientRect().top),
    ).toBeLessThan(900);
    await page.evaluate('window.scrollTo(0, 0)');
    await checkAtWidths('channel', () => index.waitFor());
  });

  it('an evidence event opens: decisions in words and colour, device, receipt and proof', async () => {
    await openView(page, 'Evidence');
    // The same ISO day fields as Overview; a day filter is sent as that UTC day's bounds.
    await page.getByLabel('From', { exact: true }).fill(isoDay(LATER));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const table = page.getByRole('region', { name: 'Evidence events' });
    await eventually(() => table.locator('tbody tr').count()).toBe(3);

    // At 375 px the table is wider than its box: a cue says so; at 1280 there is none to give.
    await page.setViewportSize({ width: 375, height: 800 });
    const cue = page.getByText('Scroll sideways for more columns');
    await cue.waitFor();
    expect(await table.evaluate((el) => el.classList.contains('more-right'))).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await cue.waitFor({ state: 'hidden' });

    // The custom choice of the later day: one purpose granted, one denied.
    const listed = await t.http.get(`/v1/evidence?channelId=${site.channelId}&limit=3`, {
      key: tenant.testKey,
    });
    const event = listed.body.data.find((e: { decisions: object }) =>
      Object.values(e.decisions).includes('denied'),
    );
    // Each event's outcome, by the rule the analytics count (required purposes aside).
    const outcomes = await table.locator('tbody tr td:nth-child(5)').allTextContents();
    expect(outcomes.sort()).toEqual(['Accept all', 'Accept all', 'Custom']);
    await table.locator(`a[href="#/evidence/${event.id}"]`).click();
    await page.getByRole('heading', { level: 1, name: 'Evidence event' }).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/evidence/${event.id}`);
    // A string, evaluated in the page: the root tsconfig has no DOM types.
    const marks = (await page.evaluate(`[...document.querySelectorAll('main .decision')].map((li) => [
      li.textContent.replace(/\\s+/g, ' ').trim(),
      getComputedStyle(li.querySelector('.decision-value')).backgroundColor,
    ])`)) as [string, string][];
    const NAMES: Record<string, string> = {
      analytics: 'Audience measurement',
      marketing: 'Marketing',
      necessary: 'Strictly necessary',
    };
    const green = 'rgb(220, 252, 231)';
    const red = 'rgb(254, 226, 226)';
    expect(marks).toEqual(
      Object.entries(event.decisions).map(([k, v]) => [
        // The purpose's name (as renamed above), then its key.
        `${NAMES[k]} ${k} ${v === 'granted' ? '✓' : '✕'} ${v}`,
        v === 'granted' ? green : red,
      ]),
    );
    expect(marks.map((m) => m[1])).toContain(red);
    const main = await textOf(page.locator('main'));
    expect(main).toContain('A device: this browser only');
    expect(main).toContain(event.receipt.hash);
    const proof = await t.http.get(`/v1/evidence/${event.id}/proof`, { key: tenant.testKey });
    expect(proof.status, proof.text).toBe(200);
    expect(main).toContain(`Leaf ${proof.body.data.leafIndex} of ${proof.body.data.treeSize}`);
    expect(main).toContain(proof.body.data.rootHash);
    expect(
      await page.getByRole('link', { name: `Version ${event.configVersion}` }).getAttribute('href'),
    ).toBe(`#/channels/${site.channelId}/config-versions`);
    expect(main).toContain('OutcomeCustom');
    await checkAtWidths('evidence-event', () =>
      page.getByRole('heading', { name: 'Receipt and proof' }).waitFor(),
    );

    // The same visitor changes their mind: the event links to all of that subject's decisions,
    // found by the event (the console knows only the masked pseudonym).
    const again = await t.http.post(`/v1/public/sites/${site.siteKey}/preferences?region=FR`, {
      body: {
        subjectId: `sub-${LATER}-0-granted,denied`,
        decisions: { analytics: 'denied', marketing: 'denied' },
        configVersion: site.configVersion,
      },
      headers: { origin: SITE_ORIGIN },
    });
    expect(again.status, again.text).toBe(201);
    await page.getByRole('link', { name: 'This subject’s other decisions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Evidence: one subject’s decisions' }).waitFor();
    const theirs = page.getByRole('region', { name: 'Evidence events' });
    await eventually(() => theirs.locator('tbody tr').count()).toBe(2);
    const subjects = await theirs.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(new Set(subjects)).toEqual(new Set([event.subject.pseudonym]));
    expect(await theirs.locator('tbody tr td:nth-child(5)').allTextContents()).toEqual([
      'Reject all',
      'Custom',
    ]);
    await checkAtWidths('evidence-subject', () => theirs.locator('tbody tr').first().waitFor());
    expect(pageErrors).toEqual([]);
  });

  it('audit log ids link to what they name', async () => {
    const created = await t.http.get('/v1/audit-logs?action=channel.created&limit=1', {
      key: tenant.testKey,
    });
    const entry = created.body.data[0];
    expect(entry.actor.type).toBe('api_key');
    await openView(page, 'Audit log');
    const entries = page.getByRole('region', { name: 'Audit entries' });
    await entries.getByRole('link', { name: site.channelId }).first().waitFor();
    expect(await entries.getByRole('link', { name: site.channelId }).first().getAttribute('href')).toBe(
      `#/channels/${site.channelId}`,
    );
    // Beside the ids, what people know them as: the key's name and its member's email, the channel's name.
    const named = await t.http.get('/v1/audit-logs?action=channel.created&limit=1&expand=names', {
      key: tenant.testKey,
    });
    const { actorName, actorEmail, targetName } = named.body.data[0];
    expect([actorName, actorEmail, targetName].every(Boolean)).toBe(true);
    const row = entries.locator('tr', { has: page.getByRole('link', { name: site.channelId }) }).first();
    const text = await row.textContent();
    expect(text).toContain(targetName);
    expect(text).toContain(`${actorName}`);
    expect(text).toContain(`of ${actorEmail}`);
    // The console's own sign-in: the member by their email.
    const signedIn = await t.http.get('/v1/audit-logs?action=member.signed_in&limit=1&expand=names', {
      key: tenant.testKey,
    });
    const member = signedIn.body.data[0];
    expect(member.actorEmail).toMatch(/@/);
    const memberRow = entries.locator('tr', { hasText: 'member.signed_in' }).first();
    expect(await memberRow.textContent()).toContain(member.actorEmail);
    await entries.getByRole('link', { name: entry.actor.id }).first().click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('tr[aria-current="true"]').waitFor();
    expect(await page.locator('tr[aria-current="true"]').getAttribute('data-id')).toBe(entry.actor.id);
  });

  it('the console’s guide references open the guides the service serves', async () => {
    await page.goto(`/console#/channels/${site.channelId}`);
    const link = page.getByRole('link', { name: /Signed-in visitors/ });
    await link.waitFor();
    const href = await link.getAttribute('href');
    expect(href).toBe('/docs/guides/signed-in-visitors.md');
    const served = await fetch(`${t.baseUrl}${href}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await served.text()).toBe(fs.readFileSync('docs/guides/signed-in-visitors.md', 'utf8'));
    for (const bad of ['nope.md', '..%2Fdesign.md', 'README']) {
      const res = await fetch(`${t.baseUrl}/docs/guides/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});
