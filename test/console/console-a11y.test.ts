import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWorker } from '../exports/helpers.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import { webhookWorker } from '../webhooks/worker.ts';
import {
  browserSkipReason,
  newPage,
  openBrowser,
  openView,
  SHOTS,
  signedInMember,
  signInAs,
} from './console-browser.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

/** Every view the navigation reaches, in its order (main.ts VIEWS). */
const VIEWS = ['Overview', 'API keys', 'Channels', 'Evidence', 'Exports', 'Webhooks', 'Audit log'];
/** A full axe run takes seconds per page on 2 shared cores; a test walks up to 8 pages. */
const AXE_TEST_TIMEOUT = 120_000;

/**
 * axe-core (WCAG 2.0 A/AA and 2.1 AA rules) over every console view, filled with rows of each kind
 * (a recorded consent, a finished and a queued export, a failed webhook delivery), so tables,
 * badges and row actions are checked, not only empty states.
 */
describe.skipIf(skipWith(browserSkipReason))('console accessibility in Chromium (axe-core)', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let owner: { email: string };
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        ...SITES_TEST_ENV,
        SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1',
      },
    });
    browser = await openBrowser();
    tenant = await t.tenant();
    owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const key = tenant.testKey;
    // Port 9 (discard) refuses the connection: the delivery fails, and the view offers Redeliver.
    const hook = await t.http.post('/v1/webhook-destinations', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', description: 'Refusing receiver' },
    });
    expect(hook.status, hook.text).toBe(201);
    await recordConsent(t, await createReadySite(t, key, { name: 'Corner Shop' }));
    const worker = webhookWorker(t);
    await worker.runDue();
    t.clock.advance(2000);
    await worker.runDue();
    for (const format of ['csv', 'jsonl']) {
      const res = await t.http.post('/v1/exports', { key, body: { format } });
      expect(res.status, res.text).toBe(202);
      if (format === 'csv') await exportWorker(t).runDue();
    }
  });
  afterAll(async () => {
    console.log(`console axe violations (wcag2a, wcag2aa, wcag21aa): ${JSON.stringify(counts)}`);
    await browser?.close();
    await t?.close();
  });

  async function expectAccessible(page: Page, name: string) {
    const violations = await axeViolations(page);
    counts[name] = violations.length;
    await page.screenshot({ path: `${SHOTS}/a11y-${name.replace(/\W+/g, '-')}.png`, fullPage: true });
    expect(violations, `${name}:\n${describeViolations(violations)}`).toEqual([]);
  }

  it(
    'sign-in page, empty and after a refused password',
    async () => {
      const { context, page } = await newPage(browser, t.baseUrl);
      await page.goto('/console');
      await page.getByLabel('Email').waitFor();
      await expectAccessible(page, 'sign-in');
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('.message.error:not([hidden])').waitFor();
      await expectAccessible(page, 'sign-in refused');
      // The same check fails on a field without a label and on faint text: it is not a no-op.
      await page.evaluate(`document.querySelector('form').append(Object.assign(document.createElement('input'),
      { name: 'unlabelled' }), Object.assign(document.createElement('p'), { textContent: 'Faint', style: 'color:#ccc' }))`);
      const ids = (await axeViolations(page)).map((v) => v.id).sort();
      expect(ids).toEqual(['color-contrast', 'label']);
      await context.close();
    },
    AXE_TEST_TIMEOUT,
  );

  it(
    'every view in the navigation, and a channel opened',
    async () => {
      const { context, page } = await newPage(browser, t.baseUrl);
      await signInAs(page, owner.email, PASSWORD);
      for (const view of VIEWS) {
        await openView(page, view);
        await expectAccessible(page, view);
      }
      await openView(page, 'Channels');
      await page.getByRole('button', { name: 'Open Corner Shop' }).click();
      await page.getByRole('heading', { name: 'Channel: Corner Shop' }).waitFor();
      await expectAccessible(page, 'channel detail');
      await context.close();
    },
    AXE_TEST_TIMEOUT,
  );

  it(
    'a channel’s region rules with the API’s errors at their fields, and a visitor preview',
    async () => {
      const { context, page } = await newPage(browser, t.baseUrl);
      await signInAs(page, owner.email, PASSWORD);
      await openView(page, 'Channels');
      await page.getByRole('button', { name: 'Open Corner Shop' }).click();
      await page.getByRole('heading', { name: 'Channel: Corner Shop' }).waitFor();
      const rules = page.getByRole('form', { name: 'Edit region rules' });
      await rules.getByRole('button', { name: 'Add rule' }).click();
      await page.getByLabel('Rule 2 regions').fill('US-ZZ, USA');
      await page.getByLabel('Rule 2 regime').selectOption('opt-out');
      await page.getByLabel('Ask again after (days)').fill('9999');
      await page.getByRole('button', { name: 'Save region rules' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      await page.locator('.message.error:not([hidden])').waitFor();
      await expectAccessible(page, 'channel region rules refused');

      const preview = page.getByRole('form', { name: 'Preview as a visitor' });
      await page.getByLabel('Visitor’s region code').fill('FR');
      await preview.getByRole('button', { name: 'Preview' }).click();
      await page.locator('.preview-result').waitFor();
      await expectAccessible(page, 'channel preview FR');
      await page.getByLabel('Visitor’s region code').fill('nowhere');
      await preview.getByRole('button', { name: 'Preview' }).click();
      await page.getByLabel('Visitor’s region code').and(page.locator('[aria-invalid="true"]')).waitFor();
      await expectAccessible(page, 'channel preview refused');
      await context.close();
    },
    AXE_TEST_TIMEOUT,
  );

  it(
    'a new key shown once, and the header on live data',
    async () => {
      const { context, page } = await newPage(browser, t.baseUrl);
      await signInAs(page, owner.email, PASSWORD);
      await openView(page, 'API keys');
      await page.getByLabel('Name', { exact: true }).fill('Reporting');
      await page.getByRole('checkbox', { name: 'evidence:read' }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('.secret, .message.error:not([hidden])').first().waitFor();
      expect(await page.locator('.message.error:not([hidden])').allTextContents()).toEqual([]);
      await expectAccessible(page, 'API keys secret shown');

      await page.getByLabel('Environment').selectOption('live');
      await page.locator('header.env-live').waitFor();
      await page.locator('.loading').waitFor({ state: 'detached' });
      await expectAccessible(page, 'API keys live');
      await context.close();
    },
    AXE_TEST_TIMEOUT,
  );

  it(
    'every view as an analyst (read-only: forms disabled or absent, no row actions)',
    async () => {
      const { context, page } = await signedInMember(t, browser, tenant.organizationId, 'analyst');
      for (const view of VIEWS) {
        await openView(page, view);
        await expectAccessible(page, `${view} analyst`);
      }
      await openView(page, 'Channels');
      await page.getByRole('button', { name: 'Open Corner Shop' }).click();
      await page.getByRole('heading', { name: 'Channel: Corner Shop' }).waitFor();
      await expectAccessible(page, 'channel detail analyst');
      await context.close();
    },
    AXE_TEST_TIMEOUT,
  );
});
