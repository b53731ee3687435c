import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createReadySite, type ReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';
import { skipWith } from '../helpers/skip.ts';
import { newSigningKey } from '../ledger/ledger-helpers.ts';
import { axeViolations, describeViolations } from '../sdk/axe.ts';
import { browserSkipReason, launchChromium } from '../sdk/harness.ts';

/**
 * The visitor's receipt page (docs/receipts.md) in Chromium: it verifies a sealed receipt with WebCrypto,
 * passes axe, names the signature check when the served JSON is tampered with, says "not yet sealed"
 * before the sealer ran, and a wrong token is a 404.
 */
const SHOTS = 'test-results/receipts';
/** Refreshed from the run's screenshot with UPDATE_DOC_IMAGES=1 (docs/receipts.md shows it). */
const DOC_IMAGE = 'docs/images/receipt-verified.png';

const signingKey = newSigningKey();
let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
let browser: Browser;

/** The receipt url on the test server (BASE_URL in tests is not where it listens). */
const onServer = (url: string) => {
  const u = new URL(url);
  return t.baseUrl + u.pathname + u.search;
};

async function receiptJson(url: string) {
  const res = await t.http.get(new URL(url).pathname + new URL(url).search, {
    headers: { accept: 'application/json' },
  });
  return res.body.data;
}

async function sealUntil(until: () => Promise<boolean>) {
  for (let attempt = 0; attempt < 10; attempt++) {
    t.clock.advance(5_000);
    await t.worker.runDue();
    if (await until()) return;
  }
  throw new Error('the ledger.seal task did not seal');
}

/** Waits for the page's verdict to leave "Checking…" and returns it with the checks' lines. */
async function verdictOf(page: Page) {
  // A locator waits from Playwright's own world: the page's CSP forbids the eval a polled function needs.
  await page.locator('#status:not([data-state="checking"])').waitFor();
  return page.evaluate(`({
    state: document.getElementById('status').dataset.state,
    verdict: document.getElementById('verdict').textContent,
    detail: document.getElementById('verdict-detail').textContent,
    checks: Array.from(document.querySelectorAll('#checks li'), (li) => li.textContent),
    text: document.body.innerText,
  })`) as Promise<{ state: string; verdict: string; detail: string; checks: string[]; text: string }>;
}

describe.skipIf(skipWith(browserSkipReason))('the receipt page in Chromium', () => {
  let sealedUrl: string;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...SITES_TEST_ENV, LEDGER_SIGNING_KEY: signingKey.pem } });
    tenant = await t.tenant();
    site = await createReadySite(t, tenant.testKey);
    browser = await launchChromium();
    const data = await recordConsent(t, site, {});
    sealedUrl = data.receipt.url;
    await sealUntil(async () => (await receiptJson(sealedUrl)).proof !== null);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('verifies a sealed receipt in the browser, shows what was recorded, and passes axe', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const res = await page.goto(onServer(sealedUrl));
    expect(res?.status()).toBe(200);
    const v = await verdictOf(page);
    expect(v, JSON.stringify(v)).toMatchObject({ state: 'verified', verdict: 'Verified' });
    expect(v.checks).toHaveLength(3);
    for (const line of v.checks) expect(line.startsWith('✓')).toBe(true);
    expect(v.text).toContain('Marketing');
    expect(v.text).toContain('Refused');
    expect(v.text).toContain('Allowed');
    expect(errors).toEqual([]);

    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);

    await page.screenshot({ path: `${SHOTS}/receipt-verified.png`, fullPage: true });
    // The documentation's copy changes only on request: a run must not leave a tracked file modified.
    if (process.env.UPDATE_DOC_IMAGES === '1') fs.copyFileSync(`${SHOTS}/receipt-verified.png`, DOC_IMAGE);
    await context.close();
  });

  it('fails on the signature check when the served JSON has a changed decision', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    let tampered = 0;
    await page.route(
      (url) => url.pathname.startsWith('/v1/public/receipts/'),
      async (route) => {
        const request = route.request();
        if (!(request.headers().accept ?? '').includes('application/json')) return route.continue();
        const response = await route.fetch();
        const body = await response.json();
        const marketing = body.data.purposes.find((p: { key: string }) => p.key === 'marketing');
        expect(marketing.decision).toBe('denied');
        marketing.decision = 'granted';
        tampered++;
        return route.fulfill({ response, json: body });
      },
    );
    await page.goto(onServer(sealedUrl));
    const v = await verdictOf(page);
    expect(tampered).toBe(1);
    expect(v.state).toBe('failed');
    expect(v.verdict).toBe('Not verified');
    expect(v.detail).toContain('signature');
    expect(v.checks).toHaveLength(1);
    expect(v.checks[0]).toMatch(/^✗ The service signed exactly what this receipt shows/);
    await page.screenshot({ path: `${SHOTS}/receipt-tampered.png`, fullPage: true });
    await context.close();
  });

  it('says "not yet sealed" for an event the sealer has not reached, with the signature checked', async () => {
    const data = await recordConsent(t, site, {});
    expect((await receiptJson(data.receipt.url)).proof).toBeNull();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(onServer(data.receipt.url));
    const v = await verdictOf(page);
    expect(v.state).toBe('pending');
    expect(v.verdict).toBe('Not yet sealed');
    expect(v.detail).toContain('not yet sealed');
    expect(v.checks).toEqual([expect.stringMatching(/^✓ The service signed/)]);
    await page.screenshot({ path: `${SHOTS}/receipt-unsealed.png`, fullPage: true });
    await context.close();
  });

  it('answers a wrong token with 404 and no page', async () => {
    const url = new URL(onServer(sealedUrl));
    const token = url.searchParams.get('token') as string;
    url.searchParams.set('token', token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'));
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(url.toString());
    expect(res?.status()).toBe(404);
    expect(res?.headers()['content-type']).toMatch(/^application\/problem\+json/);
    expect(await page.locator('#verdict').count()).toBe(0);
    await context.close();
  });
});
