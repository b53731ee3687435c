import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWorker } from '../exports/helpers.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { type Receiver, startReceiver } from '../webhooks/receiver.ts';
import { webhookWorker } from '../webhooks/worker.ts';
import {
  browserSkipReason,
  eventually,
  openBrowser,
  openView,
  SHOTS,
  signedInMember,
  textOf,
} from './console-browser.ts';

/** The console's write paths beyond API keys: channels, exports and webhooks, through the UI. */
describe.skipIf(skipWith(browserSkipReason))('console flows in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let tenant: Tenant;
  let page: Page;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        ...SITES_TEST_ENV,
        SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1',
      },
    });
    receiver = await startReceiver();
    browser = await openBrowser();
    tenant = await t.tenant();
    await recordConsent(t, await createReadySite(t, tenant.testKey, { name: 'Corner Shop' }));
    page = (await signedInMember(t, browser, tenant.organizationId, 'developer')).page;
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  const alertText = () => textOf(page.locator('.message.error:not([hidden])').first());

  it('creates a channel and edits its purposes, technologies and origins; shows API problems', async () => {
    await openView(page, 'Channels');
    await page.getByLabel('Channel name').fill('Blog');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('heading', { name: 'Channel: Blog' }).waitFor();
    // The open channel has an address of its own: a reload (or a shared link) opens it again.
    expect(new URL(page.url()).hash).toMatch(/^#\/channels\/ch_\w+$/);
    await page.reload();
    await page.getByRole('heading', { name: 'Channel: Blog' }).waitFor();
    await page.getByLabel('Purpose key', { exact: true }).fill('analytics');
    await page.getByLabel('Purpose name').fill('Analytics');
    await page.getByRole('button', { name: 'Add purpose' }).click();
    await eventually(() => textOf(page.getByRole('region', { name: 'Purposes' }))).toContain('Analytics');
    await page.getByLabel('Technology name').fill('Matomo');
    await page.getByLabel('Purpose keys').fill('analytics');
    await page.getByRole('button', { name: 'Add technology' }).click();
    await eventually(() => textOf(page.getByRole('region', { name: 'Technologies' }))).toContain('Matomo');
    await page.getByLabel('Origin', { exact: true }).fill('https://blog.example.com');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await eventually(() => textOf(page.getByRole('region', { name: 'Origins' }))).toContain(
      'https://blog.example.com',
    );
    // The API's problem detail is what the person reads.
    await page.getByLabel('Origin', { exact: true }).fill('ftp://blog.example.com');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await eventually(alertText).toMatch(/scheme|http/i);
    const snippet = await page.getByLabel('Snippet HTML').inputValue();
    expect(snippet).toMatch(/<script src="[^"]+\/v1\/public\/sites\/site_test_\w+\/sdk\.js"/);
  });

  it('requests an export and downloads it once it succeeded', async () => {
    await openView(page, 'Exports');
    await page.getByLabel('Format').selectOption('csv');
    // The channel is picked by its name, not typed as an id.
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/v1/exports'))
        requests.push(request.postData() ?? '');
    });
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: 'Corner Shop' });
    await page.getByRole('button', { name: 'Request export' }).click();
    await eventually(async () => requests.length).toBe(1);
    const corner = (await t.http.get('/v1/channels?limit=100', { key: tenant.testKey })).body.data.find(
      (c: any) => c.name === 'Corner Shop',
    );
    expect(JSON.parse(requests[0]).channelId).toBe(corner.id);
    await eventually(() => textOf(page.getByRole('region', { name: 'Exports' }))).toContain('queued');
    await exportWorker(t).runDue();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const link = page.getByRole('link', { name: 'Download' });
    await link.waitFor();
    const download = await page.evaluate(
      async (href) => {
        const response = await fetch(href as string);
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          text: await response.text(),
        };
      },
      await link.getAttribute('href'),
    );
    expect(download.status).toBe(200);
    expect(download.type).toMatch(/text\/csv/);
    expect(download.text.split('\n').filter(Boolean)).toHaveLength(2);
    await page.screenshot({ path: `${SHOTS}/exports-done-1280.png`, fullPage: true });
  });

  it('adds a webhook destination (secret once) and redelivers a failed delivery', async () => {
    receiver.reply(() => ({ status: 500 }));
    await openView(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.locator('.secret, .message.error:not([hidden])').first().waitFor();
    expect(await page.locator('.message.error:not([hidden])').count(), (await alertText()) ?? '').toBe(0);
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    // An event, then its two attempts (the schedule retries once, after 1 s): the delivery fails.
    await t.http.post('/v1/channels', { key: tenant.testKey, body: { name: 'Event source' } });
    const worker = webhookWorker(t);
    await worker.runDue();
    t.clock.advance(2000);
    await worker.runDue();
    await openView(page, 'Webhooks');
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await eventually(() => textOf(deliveries)).toContain('failed');
    receiver.reply(() => ({ status: 200 }));
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
    await eventually(() => textOf(deliveries)).toContain('pending');
    await worker.runDue();
    await openView(page, 'Webhooks');
    await eventually(() => textOf(deliveries)).toContain('succeeded');
    await page.screenshot({ path: `${SHOTS}/webhooks-redelivered-1280.png`, fullPage: true });
  });
});
