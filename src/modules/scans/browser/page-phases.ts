import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ScanFailure, seconds, sleep, within } from './deadlines.ts';
import type { GuardProxy } from './guard-proxy.ts';
import { watchNetwork } from './network-watch.ts';
import { PhaseObservations, type ScanPhase } from './observations.ts';
import { closeOtherPages, guardContext } from './page-guards.ts';
import { clickConsentButton, collectCookies, collectStorage, consentButtonAppears } from './page-state.ts';

export interface ResponseReader {
  match: (url: URL) => boolean;
  read: (url: URL, body: string) => void;
}

export interface PhaseRun {
  browser: Browser;
  proxy: GuardProxy;
  url: string;
  phase: ScanPhase;
  pageTimeoutMs: number;
  settleMs: number;
  blockRequest?: (url: URL) => boolean;
  readResponses?: ResponseReader;
  /** How long a click phase waits for its button to appear. */
  bannerWaitMs: number;
  /** Aborts on the worker's signal or the whole scan's deadline, with the error to reject with. */
  stop: AbortSignal;
}

export interface PhaseResult {
  observations: PhaseObservations;
  /** Whether the phase's consent button was found and clicked (false for before-consent). */
  bannerClicked: boolean;
  /** Whether either consent button was on the page when the phase ended (before-consent only). */
  bannerShown: boolean;
  /** Hostnames the page asked for that the guard refused. */
  refusedHosts: string[];
}

/**
 * Reading cookies and storage comes after `pageTimeoutMs` (loading, the click and settling use
 * all of it) and gets this much more before the phase is cut off.
 */
const COLLECT_GRACE_MS = 2000;
/** For reading every frame's storage: well inside the grace. */
const STORAGE_READ_MS = 1000;
/** "Quiet" network: nothing in flight for this long. */
const QUIET_MS = 500;

/**
 * One page in one fresh profile (a new browser context: no cookies, no storage, no cache, service
 * workers blocked): load, click the phase's button, let late trackers run, read what was set.
 * Loading, clicking and settling fit in `pageTimeoutMs`; reading what was set in a short grace.
 */
export async function runPhase(run: PhaseRun): Promise<PhaseResult> {
  const deadline = Date.now() + run.pageTimeoutMs;
  const opened = run.browser.newContext({ serviceWorkers: 'block', acceptDownloads: false });
  try {
    return await within(
      opened.then((context) => phaseSteps(run, context, deadline)),
      run.pageTimeoutMs + COLLECT_GRACE_MS,
      () => notLoaded(run),
      run.stop,
    );
  } finally {
    // A hung browser may not answer this either; it is closed (or killed) with the scan anyway.
    const closing = opened.then((context) => context.close());
    await within(closing, 3000, () => new Error('context close timed out'), run.stop).catch(() => {});
  }
}

async function phaseSteps(run: PhaseRun, context: BrowserContext, deadline: number): Promise<PhaseResult> {
  const left = () => deadline - Date.now();
  const observations = new PhaseObservations(run.phase, run.url);
  const network = watchNetwork(context, observations, run.blockRequest);
  await guardContext(context);
  const blockRequest = run.blockRequest;
  if (blockRequest)
    await context.route(
      (url) => blockRequest(url),
      (route) => route.abort('blockedbyclient'),
    );
  const page = await context.newPage();
  closeOtherPages(context, page);
  const mainDocument = followMainDocument(page, run.url);
  const reader = run.readResponses;
  if (reader) {
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (!reader.match(url)) return;
      response.text().then(
        (body) => reader.read(url, body),
        () => {},
      );
    });
  }

  try {
    // DOMContentLoaded is what a page must reach; a tracker pixel that never answers can hold
    // `load` forever on a real site, so that one only gets a share of the time.
    await page.goto(run.url, { waitUntil: 'domcontentloaded', timeout: Math.max(1, left()) });
  } catch (error) {
    throwIfRefused(run, mainDocument.url);
    if ((error as Error).name === 'TimeoutError') throw notLoaded(run);
    const code = /net::ERR_[A-Z_]+/.exec((error as Error).message)?.[0] ?? 'the browser gave no reason';
    throw new ScanFailure(`The page ${run.url} could not be loaded (${code})`);
  }
  throwIfRefused(run, mainDocument.url);

  const clickPhase = run.phase !== 'before-consent';
  const bannerWait = clickPhase ? run.bannerWaitMs : 0;
  const afterLoadReserve = bannerWait + run.settleMs;
  await page.waitForLoadState('load', { timeout: Math.max(1, left() - afterLoadReserve) }).catch(() => {});

  let bannerClicked = false;
  if (clickPhase) {
    const action = run.phase === 'after-reject' ? 'reject-all' : 'accept-all';
    const waitMs = Math.min(bannerWait, left() - run.settleMs);
    bannerClicked = await clickConsentButton(page, action, waitMs);
  }

  await sleep(Math.min(run.settleMs, left()), run.stop);
  await network.quiet(QUIET_MS, Math.min(run.settleMs * 2, left()), run.stop);
  // A script or the click may have navigated the page somewhere the guard refused.
  throwIfRefused(run, mainDocument.url);

  await collectCookies(context, observations);
  await collectStorage(page, observations, STORAGE_READ_MS, run.stop);
  const refusedHosts = observations.dropRequestsTo((hostname) => run.proxy.refusal(hostname) !== undefined);
  // Before consent, the banner may still be on its way after settling: it gets the click phases'
  // wait, so a slow banner is not taken for none (which would shorten the next phases' wait).
  const bannerShown =
    !clickPhase && (await consentButtonAppears(page, Math.min(run.bannerWaitMs, left()), run.stop));
  return { observations, bannerClicked, bannerShown, refusedHosts };
}

function notLoaded(run: PhaseRun) {
  return new ScanFailure(`The page ${run.url} did not finish loading within ${seconds(run.pageTimeoutMs)}`);
}

/** The URL the main frame last navigated to: the scanned URL, or where redirects took it. */
function followMainDocument(page: Page, url: string) {
  const latest = { url };
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) latest.url = request.url();
  });
  return latest;
}

/** The page itself (not a subresource) was refused by the guard: the customer needs to know why. */
function throwIfRefused(run: PhaseRun, documentUrl: string) {
  const hostname = new URL(documentUrl).hostname;
  const refusal = run.proxy.refusal(hostname);
  if (!refusal) return;
  // "http://a/ resolves to …" or "http://a/ redirected to http://b/, which resolves to …"
  const subject = documentUrl === run.url ? run.url : `${run.url} redirected to ${documentUrl}, which`;
  throw new ScanFailure(
    refusal.reason === 'non-public'
      ? `${subject} resolves to a non-public address; scans only reach public addresses`
      : `${subject} has a host name (${hostname}) that could not be resolved`,
  );
}
