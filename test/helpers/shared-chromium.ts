import fs from 'node:fs';

/** The Chromium the browser tests drive (same rule as test/sdk/harness.ts). */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH || process.env.SCANNER_CHROMIUM_PATH || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * One Chromium for the whole run, started by the first browser test file that asks
 * (lazy-resources-global.ts): 37 browser test files used to launch their own (a second or more each
 * on two shared cores, and the start-up burst of its processes beside the other worker's tests).
 * Files stay isolated as before: each connects and works in browser contexts of its own (fresh
 * cookies, storage and cache); closing the connection closes them. The scanner's tests still launch
 * theirs: the scan's browser is what they test. Null when there is none to share (no browser
 * installed, or SHARED_CHROMIUM=0): then each file launches its own.
 */
export async function startSharedChromium(): Promise<{
  wsEndpoint: string;
  close: () => Promise<void>;
} | null> {
  if (process.env.SHARED_CHROMIUM === '0' || !fs.existsSync(CHROMIUM_PATH)) return null;
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    // Playwright's own signal handlers would exit the vitest main process on SIGINT.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
}
