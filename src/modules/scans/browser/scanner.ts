import { ScanFailure, seconds, within } from './deadlines.ts';
import { type GuardProxy, type Lookup, startGuardProxy } from './guard-proxy.ts';
import { checkChromium, launchScanBrowser, type ScanBrowser } from './launch.ts';
import { type MemoryWatch, watchMemory } from './memory-watch.ts';
import { type PageScan, SCAN_PHASES } from './observations.ts';
import { type ResponseReader, runPhase } from './page-phases.ts';

export interface ScanOptions {
  urls: string[];
  /** SCANNER_CHROMIUM_PATH, default /usr/bin/chromium. */
  chromiumPath: string;
  /** The SSRF policy: true when the browser may connect to this IP. */
  allowAddress: (ip: string) => boolean;
  /** Per page phase: load, click, settle and reading what was set. */
  pageTimeoutMs: number;
  /** The whole scan, browser start included. */
  scanTimeoutMs: number;
  /**
   * SCAN_MEMORY_LIMIT_MB (default 1024): the browser's memory, all its processes together. Past it
   * the browser is killed and the scan fails with the page that was loading.
   */
  memoryLimitMb?: number;
  /** How long to wait after load / after a click for late trackers (default 1500). */
  settleMs?: number;
  /** The worker stopping: the browser is killed at once and the scan rejects with signal.reason. */
  signal?: AbortSignal;
  /** Requests to abort (the service's own decision/impression posts, so scans record no evidence). */
  blockRequest?: (url: URL) => boolean;
  /**
   * Responses to read (the service's own config answer, whose regime decides what a violation is):
   * `read` gets the body of every response whose URL `match`es, in every phase.
   */
  readResponses?: ResponseReader;
  /** DNS for the guard proxy, injectable for tests. */
  lookup?: Lookup;
  /** Called with the Chromium process id once it runs (logs, and tests that check it is gone). */
  onBrowserStarted?: (pid: number) => void;
}

const DEFAULT_SETTLE_MS = 1500;
/** A click phase waits this long at most for the banner (the SDK renders it after a config fetch). */
const MAX_BANNER_WAIT_MS = 10_000;
/** …and this long when the first profile saw none after load and settling. */
const NO_BANNER_WAIT_MS = 1000;
/** Bound on starting Chromium (a cold start on a busy 2-core machine takes a few seconds). */
const LAUNCH_TIMEOUT_MS = 30_000;
export const DEFAULT_MEMORY_LIMIT_MB = 1024;
/**
 * Far above what the browser runs with its renderer limit (about a dozen processes): more means a
 * page found a way around that limit.
 */
export const MAX_BROWSER_PROCESSES = 40;
/** Refused hosts named per page (the scan's warning lists them): a page can ask for thousands. */
export const MAX_REFUSED_HOSTS = 20;
/** How often the browser's memory is read; a page filling memory flat out gains a few hundred MB between reads. */
const MEMORY_CHECK_MS = 250;

/** Parses the URLs before anything starts; a scan only loads http(s) pages. */
function checkUrls(urls: string[]): string[] {
  if (urls.length === 0) throw new ScanFailure('The scan has no page to load');
  return urls.map((raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ScanFailure(`${raw} is not an absolute http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ScanFailure(`${raw} is not an http(s) URL; scans only load web pages`);
    }
    url.hash = '';
    return url.href;
  });
}

/**
 * Loads each URL in headless Chromium in three fresh profiles (before consent, after "reject all",
 * after "accept all") and reports what each set and requested. Every connection goes through the
 * guard proxy. Chromium and the proxy are always closed, also on failure, timeout and abort.
 * Throws ScanFailure (a customer-facing reason) or, when `signal` aborts, its reason.
 */
export async function runBrowserScan(options: ScanOptions): Promise<PageScan[]> {
  const urls = checkUrls(options.urls);
  await checkChromium(options.chromiumPath);
  options.signal?.throwIfAborted();

  // One signal for "stop now": the worker's, or the whole scan's deadline.
  const stopper = new AbortController();
  const stop = stopper.signal;
  const onAbort = () => stopper.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const scanTimer = setTimeout(
    () => stopper.abort(new ScanFailure(`The scan did not finish within ${seconds(options.scanTimeoutMs)}`)),
    options.scanTimeoutMs,
  );

  let proxy: GuardProxy | undefined;
  let launching: Promise<ScanBrowser> | undefined;
  let memoryWatch: MemoryWatch | undefined;
  let current = urls[0];
  // Killing at once on stop: a graceful close can wait on a page that is still busy.
  const killOnStop = () => launching?.then((browser) => browser.kill()).catch(() => {});
  stop.addEventListener('abort', killOnStop, { once: true });
  try {
    proxy = await startGuardProxy({ allowAddress: options.allowAddress, lookup: options.lookup });
    launching = launchScanBrowser(options.chromiumPath, proxy.url, LAUNCH_TIMEOUT_MS);
    const started = await within(
      launching,
      LAUNCH_TIMEOUT_MS,
      () => new ScanFailure(`The browser did not start within ${seconds(LAUNCH_TIMEOUT_MS)}`),
      stop,
    ).catch((error) => {
      if (stop.aborted) throw stop.reason;
      if (error instanceof ScanFailure) throw error;
      throw new ScanFailure(`The browser at ${options.chromiumPath} could not be started`, { cause: error });
    });
    options.onBrowserStarted?.(started.pid);
    const limitMb = options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB;
    memoryWatch = watchMemory(
      started.pid,
      { bytes: limitMb * 1024 * 1024, processes: MAX_BROWSER_PROCESSES },
      (reading) =>
        stopper.abort(
          new ScanFailure(
            reading.processes > MAX_BROWSER_PROCESSES
              ? `The page ${current} made the scan's browser start more than ${MAX_BROWSER_PROCESSES} processes; the browser was stopped`
              : `The page ${current} used more than ${limitMb} MB of memory in the scan's browser; the browser was stopped`,
          ),
        ),
      MEMORY_CHECK_MS,
    );

    const pages: PageScan[] = [];
    for (const url of urls) {
      current = url;
      const page = await scanPage(url, started, proxy, options, stop).catch((error) => {
        if (stop.aborted) throw stop.reason;
        if (error instanceof ScanFailure) throw error;
        // A browser crash or a Playwright protocol error: no internals in the customer's reason.
        throw new ScanFailure(`The browser failed while scanning ${url}`, { cause: error });
      });
      pages.push(page);
    }
    return pages;
  } finally {
    memoryWatch?.stop();
    clearTimeout(scanTimer);
    options.signal?.removeEventListener('abort', onAbort);
    stop.removeEventListener('abort', killOnStop);
    const browser = await launching?.catch(() => undefined);
    if (browser) await (stop.aborted ? browser.kill() : browser.close());
    await proxy?.close();
  }
}

async function scanPage(
  url: string,
  scanBrowser: ScanBrowser,
  proxy: GuardProxy,
  options: ScanOptions,
  stop: AbortSignal,
): Promise<PageScan> {
  const page: PageScan = {
    url,
    bannerFound: { reject: false, accept: false },
    cookies: [],
    storage: [],
    requests: [],
    refusedHosts: [],
    truncated: false,
  };
  // A page that showed no banner in its first profile gets a short wait for one in the next two
  // (regions with no blocking banner are common; 2 × the full wait would double a scan).
  let bannerWaitMs = Math.min(MAX_BANNER_WAIT_MS, Math.floor(options.pageTimeoutMs / 3));
  for (const phase of SCAN_PHASES) {
    const { observations, bannerClicked, bannerShown, refusedHosts } = await runPhase({
      browser: scanBrowser.browser,
      proxy,
      url,
      phase,
      pageTimeoutMs: options.pageTimeoutMs,
      settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
      blockRequest: options.blockRequest,
      readResponses: options.readResponses,
      bannerWaitMs,
      stop,
    });
    if (phase === 'before-consent' && !bannerShown) bannerWaitMs = Math.min(bannerWaitMs, NO_BANNER_WAIT_MS);
    if (phase === 'after-reject') page.bannerFound.reject = bannerClicked;
    if (phase === 'after-accept') page.bannerFound.accept = bannerClicked;
    page.cookies.push(...observations.cookies.values());
    page.storage.push(...observations.storage.values());
    page.requests.push(...observations.requests.values());
    page.truncated ||= observations.truncated;
    for (const hostname of refusedHosts) {
      if (page.refusedHosts.length >= MAX_REFUSED_HOSTS) break;
      if (!page.refusedHosts.includes(hostname)) page.refusedHosts.push(hostname);
    }
  }
  return page;
}
