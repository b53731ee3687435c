import type { BrowserContext, Page } from 'playwright-core';
import { within } from './deadlines.ts';
import type { PhaseObservations } from './observations.ts';

/** Beyond this many frames (ad walls nest dozens), the rest are not read. */
const MAX_FRAMES = 50;

/** Every cookie of the phase's profile, first- and third-party alike. */
export async function collectCookies(context: BrowserContext, observations: PhaseObservations) {
  for (const cookie of await context.cookies()) observations.addCookie(cookie);
}

/**
 * localStorage and sessionStorage keys of every frame, each read in its own frame (so an
 * iframe's keys are filed under its own origin). Frames that do not answer (busy, or navigating
 * away) are skipped, and reading stops when `budgetMs` is spent, rather than failing the page.
 */
export async function collectStorage(
  page: Page,
  observations: PhaseObservations,
  budgetMs: number,
  stop: AbortSignal,
) {
  const until = Date.now() + budgetMs;
  for (const frame of page.frames().slice(0, MAX_FRAMES)) {
    const left = until - Date.now();
    if (left <= 0) break;
    const read = frame.evaluate(() => {
      // Runs in the page; the service's TypeScript has no DOM types.
      const page = globalThis as unknown as {
        location: { origin: string };
        localStorage: object;
        sessionStorage: object;
      };
      try {
        return {
          origin: page.location.origin,
          local: Object.keys(page.localStorage),
          session: Object.keys(page.sessionStorage),
        };
      } catch {
        return null; // opaque origins (sandboxed frames, data: URLs) have no storage to read
      }
    });
    const keys = await within(read, left, () => new Error('frame did not answer'), stop).catch(() => null);
    if (!keys || !/^https?:/.test(keys.origin)) continue;
    for (const key of keys.local) observations.addStorage('localStorage', keys.origin, key);
    for (const key of keys.session) observations.addStorage('sessionStorage', keys.origin, key);
  }
}

const CONSENT_BUTTONS = '[data-consent-action="reject-all"], [data-consent-action="accept-all"]';

/**
 * Whether a consent button is on the page, or appears within `waitMs` (it counts even while hidden
 * or animating): the SDK renders the banner after its config fetch, which a busy machine slows.
 */
export async function consentButtonAppears(page: Page, waitMs: number, stop: AbortSignal): Promise<boolean> {
  const waiting = page
    .locator(CONSENT_BUTTONS)
    .first()
    .waitFor({ state: 'attached', timeout: Math.max(1, waitMs) })
    .then(() => true);
  return within(waiting, waitMs + 500, () => new Error('page did not answer'), stop).catch(() => false);
}

/** Waits for our banner's button (light DOM, as sdk/src/banner.ts renders it) and clicks it. */
export async function clickConsentButton(
  page: Page,
  action: 'reject-all' | 'accept-all',
  waitMs: number,
): Promise<boolean> {
  if (waitMs <= 0) return false;
  const button = page.locator(`[data-consent-action="${action}"]`).first();
  const started = Date.now();
  try {
    await button.waitFor({ state: 'visible', timeout: waitMs });
    await button.click({ timeout: Math.max(500, waitMs - (Date.now() - started)) });
    return true;
  } catch {
    return false;
  }
}
