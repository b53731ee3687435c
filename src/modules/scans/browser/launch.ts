import fs from 'node:fs';
import type { Browser, BrowserServer } from 'playwright-core';
import { ScanFailure } from './deadlines.ts';

/**
 * Always passed, beside what Playwright adds (--no-first-run, --disable-extensions, …): no
 * background traffic of the browser's own in the findings, and no UDP path around the guard proxy
 * (QUIC and WebRTC would otherwise reach addresses the proxy never saw). WebRTC's switch is
 * `--webrtc-ip-handling-policy`: Chromium 156 has no `--force-webrtc-ip-handling-policy` and
 * ignores it. Pages also lose the WebRTC constructors (page-guards.ts).
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-quic',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-dev-shm-usage',
  // At most this many renderers, frames of several sites sharing one. Site isolation would give
  // every site its own process whatever the limit (a page with 20 ad frames: 29 processes and
  // 830 MB instead of 8 and 350 MB). Its protection is between sites of one profile, and a scan's
  // profiles are fresh and hold nothing; the memory watch (memory-watch.ts) bounds the rest.
  '--renderer-process-limit=4',
  '--disable-site-isolation-trials',
];

/**
 * Playwright's defaults that a scan does without: with Chromium's popup blocker on, a page cannot
 * open windows on its own (page-guards.ts closes those a click opens).
 */
const WITHOUT_DEFAULTS = ['--disable-popup-blocking'];

/** Throws the customer-facing failure when no usable browser is at `chromiumPath`. */
export async function checkChromium(chromiumPath: string): Promise<void> {
  const fix = 'install Chromium (apt-get install chromium) or set SCANNER_CHROMIUM_PATH';
  try {
    await fs.promises.access(chromiumPath, fs.constants.F_OK);
  } catch {
    throw new ScanFailure(
      `No browser is installed for scans: SCANNER_CHROMIUM_PATH (${chromiumPath}) does not exist; ${fix}`,
    );
  }
  try {
    await fs.promises.access(chromiumPath, fs.constants.X_OK);
  } catch {
    throw new ScanFailure(
      `No browser is installed for scans: SCANNER_CHROMIUM_PATH (${chromiumPath}) is not executable; ${fix}`,
    );
  }
}

export interface ScanBrowser {
  browser: Browser;
  /** The Chromium process (leader of its own process group, renderers included). */
  pid: number;
  /** Closes gracefully; kills the process group when that takes longer than `graceMs`. */
  close(graceMs?: number): Promise<void>;
  /** SIGKILL to the process group, now. */
  kill(): Promise<void>;
}

/**
 * Chromium behind the guard proxy. launchServer rather than launch: only a BrowserServer hands
 * out the process, which is what we kill when a close hangs. `<-loopback>` removes Chromium's
 * built-in "never proxy localhost/127.0.0.1" rule, so loopback goes through the guard as well.
 * Playwright's own SIGINT/SIGTERM handlers stay off: they would exit the whole worker process.
 */
export async function launchScanBrowser(
  chromiumPath: string,
  proxyUrl: string,
  timeoutMs: number,
): Promise<ScanBrowser> {
  // Loaded only when a scan runs: the API process never pays for it.
  const { chromium } = await import('playwright-core');
  const server: BrowserServer = await chromium.launchServer({
    executablePath: chromiumPath,
    headless: true,
    chromiumSandbox: false,
    args: CHROMIUM_FLAGS,
    ignoreDefaultArgs: WITHOUT_DEFAULTS,
    proxy: { server: proxyUrl, bypass: '<-loopback>' },
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: timeoutMs,
  });
  const pid = server.process().pid ?? 0;
  let browser: Browser;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: timeoutMs });
  } catch (error) {
    await server.kill();
    throw error;
  }
  const kill = () => server.kill().catch(() => {});
  return {
    browser,
    pid,
    kill,
    async close(graceMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      const graceful = (async () => {
        await browser.close().catch(() => {});
        await server.close();
      })();
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const outcome = await Promise.race([graceful.then(() => 'closed' as const), timedOut]).catch(
        () => 'failed' as const,
      );
      clearTimeout(timer);
      graceful.catch(() => {});
      if (outcome !== 'closed') await kill();
    },
  };
}
