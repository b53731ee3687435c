import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import type { VendorListServer } from '../helpers/gvl.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { refreshVendorList, startTcfTestApp } from '../helpers/tcf.ts';
import { LOCAL_WEBHOOKS_ENV } from '../helpers/webhooks.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import {
  browserSkipReason,
  expectNoHorizontalOverflow,
  newPage,
  openBrowser,
  openView,
  signInAs,
} from './console-browser.ts';
import { memberWithPassword, PASSWORD } from './console-helpers.ts';

/** The privacy manager's screenshots (git-ignored, made by this run). */
const PRIVACY_SHOTS = 'test-results/console-shots';

/**
 * "Next steps" on the channel page and on the Overview: what a channel is missing, each with the
 * link that fixes it, read from the API. A bare channel (no privacy policy, no origin) lists both
 * and the test data purge; a ready one (policy and origin) lists only the purge; a fixed step goes.
 */
describe.skipIf(skipWith(browserSkipReason))('console next steps in Chromium', () => {
  let t: TestApp;
  let gvl: VendorListServer;
  let receiver: Receiver;
  let browser: Browser;
  let tenant: Tenant;
  let owner: { email: string };
  let ready: ReadySite;
  let bareId: string;
  let page: Page;

  beforeAll(async () => {
    // With a vendor list server (a TCF channel's list) and webhooks to a receiver on 127.0.0.1.
    ({ t, gvl } = await startTcfTestApp({
      env: { ...SITES_TEST_ENV, ...LOCAL_WEBHOOKS_ENV, SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' },
    }));
    receiver = await startReceiver();
    browser = await openBrowser();
    tenant = await t.tenant();
    owner = await memberWithPassword(t, tenant.organizationId, 'owner');
    const bare = await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'Bare' } });
    expect(bare.status, bare.text).toBe(201);
    bareId = bare.body.data.id;
    ready = await createReadySite(t, tenant.testKey, { name: 'Ready' });
    page = (await newPage(browser, t.baseUrl)).page;
    await signInAs(page, owner.email, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  const stepsOn = (where: Page) =>
    where
      .locator('section')
      .filter({ has: where.getByRole('heading', { name: 'Next steps', exact: true }) })
      .locator('li');

  it('a bare channel lists the missing policy and origin and the test purge, each with its fix', async () => {
    await page.goto(`/console#/channels/${bareId}`);
    await page.getByRole('heading', { name: 'Channel: Bare' }).waitFor();
    const steps = stepsOn(page);
    await expect.poll(() => steps.count()).toBe(3);
    const texts = await steps.allTextContents();
    expect(texts[0]).toContain('No privacy-policy URL');
    expect(texts[1]).toContain('No origin registered');
    expect(texts[2]).toContain('purged after 24 hours');
    const links = await steps.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['/docs/guides/add-the-banner.md', `#/channels/${bareId}/origins`, '#/channels']);
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);
  });

  it('an origin added is a step gone; a ready channel lists only the purge', async () => {
    const added = await t.http.post(`/v1/channels/${bareId}/origins`, {
      key: tenant.testKey,
      body: { origin: 'https://bare.example.com' },
    });
    expect(added.status, added.text).toBe(201);
    await page.reload();
    await page.getByRole('heading', { name: 'Channel: Bare' }).waitFor();
    await expect.poll(() => stepsOn(page).count()).toBe(2);
    expect((await stepsOn(page).allTextContents()).join(' ')).not.toContain('No origin registered');

    await page.goto(`/console#/channels/${ready.channelId}`);
    await page.getByRole('heading', { name: 'Channel: Ready' }).waitFor();
    await expect.poll(() => stepsOn(page).count()).toBe(1);
    expect(await stepsOn(page).first().textContent()).toContain('purged after 24 hours');
  });

  it('the Overview shows the picked channel’s next steps, at 1280 and at 390 px', async () => {
    fs.mkdirSync(PRIVACY_SHOTS, { recursive: true });
    await openView(page, 'Overview');
    await expect.poll(() => stepsOn(page).count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${PRIVACY_SHOTS}/next-steps-1280.png`, fullPage: true });
    const phone = (await newPage(browser, t.baseUrl, 390)).page;
    await signInAs(phone, owner.email, PASSWORD);
    await openView(phone, 'Overview');
    await expect.poll(() => stepsOn(phone).count()).toBeGreaterThan(0);
    await expectNoHorizontalOverflow(phone, 'the Overview with its next steps at 390 px');
    await phone.screenshot({ path: `${PRIVACY_SHOTS}/next-steps-390.png`, fullPage: true });
    const violations = await axeViolations(phone);
    expect(violations, describeViolations(violations)).toEqual([]);
    await phone.context().close();
  });

  it('a failing vendor list fetch and a webhook destination gone are steps, each gone once fixed', async () => {
    const key = tenant.testKey;
    const tcf = await t.http.post('/v1/channels', {
      key,
      body: { name: 'Framework', tcf: { cmpId: 300, vendorIds: [1], publisherCountryCode: 'FR' } },
    });
    expect(tcf.status, tcf.text).toBe(201);
    const channelId = tcf.body.data.id;
    receiver.reply(() => ({ status: 410 }));
    const destination = await t.http.post('/v1/webhook-destinations', {
      key,
      body: { url: receiver.url, eventTypes: ['*'] },
    });
    expect(destination.status, destination.text).toBe(201);
    // A change the destination is sent; its receiver answers 410 Gone, and it is disabled.
    const renamed = await t.http.patch(`/v1/channels/${channelId}`, { key, body: { description: 'IAB' } });
    expect(renamed.status, renamed.text).toBe(200);
    gvl.fail(500);
    await refreshVendorList(t);
    await t.worker.runDue();
    const gone = await t.http.get(`/v1/webhook-destinations/${destination.body.data.id}`, { key });
    expect(gone.body.data).toMatchObject({ status: 'disabled', disabledReason: 'gone' });

    await page.goto(`/console#/channels/${channelId}`);
    await page.getByRole('heading', { name: 'Channel: Framework' }).waitFor();
    const steps = stepsOn(page);
    await expect.poll(async () => (await steps.allTextContents()).join('\n')).toContain('gone (410)');
    const byText = async (text: string) => {
      const step = steps.filter({ hasText: text });
      expect(await step.count(), text).toBe(1);
      return step.locator('a').getAttribute('href');
    };
    expect(await byText('The IAB vendor list could not be fetched the last time')).toBe(
      `#/channels/${channelId}/iab-tcf`,
    );
    expect(await byText(`Webhook destination ${receiver.url} is gone (410) and was disabled`)).toBe(
      '#/webhooks',
    );
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);

    // Fixed: the list fetched again, the destination enabled; both steps go.
    gvl.heal();
    await refreshVendorList(t);
    receiver.reply(() => ({ status: 200 }));
    const enabled = await t.http.post(`/v1/webhook-destinations/${destination.body.data.id}/enable`, { key });
    expect(enabled.status, enabled.text).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Channel: Framework' }).waitFor();
    // What a bare channel still lacks: the policy URL, an origin, and the test purge.
    await expect.poll(() => steps.count()).toBe(3);
    const left = (await steps.allTextContents()).join('\n');
    expect(left).not.toContain('vendor list');
    expect(left).not.toContain('Webhook destination');
  });
});
