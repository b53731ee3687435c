import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli, type ServiceProcess, startService, waitReady } from '../helpers/processes.ts';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason, launchChromium } from '../sdk/harness.ts';

/**
 * `npx consent-service demo` as a newcomer runs it beside `npm start`: real processes (a server, the
 * CLI), the printed page loaded in Chromium, the click found as evidence through the API. On the
 * embedded store the running server takes the command over its socket; on PostgreSQL the CLI
 * writes the database directly.
 */
const SLOW = 240_000;

interface DemoJson {
  url: string;
  channelId: string;
  siteKey: string;
  organizationId: string;
}

describe.skipIf(skipWith(browserSkipReason))('consent-service demo', { timeout: SLOW }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'consent-demo-'));
  let server: ServiceProcess;
  let baseUrl: string;
  let env: Record<string, string | undefined>;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      BASE_URL: baseUrl,
      LOG_LEVEL: 'warn',
      REDIS_URL: undefined,
    };
    server = startService(['serve'], env);
    await waitReady(baseUrl, server, 180_000);
    browser = await launchChromium();
  }, SLOW);

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    await server?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const demo = async (): Promise<DemoJson> => {
    const result = await runCli(['demo', '--json'], env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('prints the page and the console, and a second run reuses the channel', async () => {
    const human = await runCli(['demo'], env, 120_000);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`Demo page: +${baseUrl}/demo/site_test_\\w+`));
    expect(human.stdout).toContain(`${baseUrl}/console#/evidence`);
    const first = await demo();
    expect(Object.keys(first).sort()).toEqual(['channelId', 'organizationId', 'siteKey', 'url']);
    expect(first.url).toBe(`${baseUrl}/demo/${first.siteKey}`);
    expect(human.stdout).toContain(first.url);
    expect(await demo()).toEqual(first);
  });

  it('shows the banner on the page the service serves, and the click is evidence', async () => {
    const site = await demo();
    const page = await browser.newPage();
    const sdkErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') sdkErrors.push(message.text());
    });
    await page.goto(site.url);
    await page.getByRole('button', { name: 'Reject all' }).click();
    await expect
      .poll(() => page.locator('#decisions').textContent(), { timeout: 15_000 })
      .toContain('denied');
    const subjectId = await page.evaluate(() => (globalThis as any).ConsentService.getSubjectId());
    expect(subjectId).toMatch(/\S/);
    await page.close();

    // An API key of the demo owner, as the walkthrough issues one, to read the evidence.
    const issued = await runCli(
      [
        ...['keys', 'create', '--org', site.organizationId, '--member', 'demo@example.com'],
        ...['--env', 'test', '--scopes', 'evidence:read', '--name', 'demo reader', '--json'],
      ],
      env,
      120_000,
    );
    expect(issued.code, issued.stderr).toBe(0);
    const { secret } = JSON.parse(issued.stdout);
    const query = new URLSearchParams({ channelId: site.channelId, subjectId });
    const res = await fetch(`${baseUrl}/v1/evidence?${query}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Array<{ decisions: Record<string, string> }> };
    expect(data).toHaveLength(1);
    expect(data[0].decisions).toEqual({ necessary: 'granted', analytics: 'denied', marketing: 'denied' });
    expect(sdkErrors).toEqual([]);
  });

  it('serves no demo page for a key that is not a test channel', async () => {
    const res = await fetch(`${baseUrl}/demo/site_live_nothere`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('npx consent-service demo');
  });
});
