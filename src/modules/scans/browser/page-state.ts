import type { BrowserContext, Page } from 'playwright-core';
import { within } from './deadlines.ts';
import { MAX_NAME_LENGTH, MAX_OBSERVATIONS_PER_PHASE, type PhaseObservations } from './observations.ts';

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
    // The page sends at most one key past the cap (so the cut is seen), each cut to the longest
    // name kept, with its whole length: a page's megabyte keys stay in the page.
    const read = frame.evaluate(
      ([maxKeys, maxLength]) => {
        // Runs in the page; the service's TypeScript has no DOM types.
        const page = globalThis as unknown as {
          location: { origin: string };
          localStorage: object;
          sessionStorage: object;
        };
        const keysOf = (storage: object) =>
          Object.keys(storage)
            .slice(0, maxKeys)
            .map((key) => [key.slice(0, maxLength), key.length] as const);
        try {
          return {
            origin: page.location.origin,
            local: keysOf(page.localStorage),
            session: keysOf(page.sessionStorage),
          };
        } catch {
          return null; // opaque origins (sandboxed frames, data: URLs) have no storage to read
        }
      },
      [MAX_OBSERVATIONS_PER_PHASE + 1, MAX_NAME_LENGTH] as const,
    );
    const keys = await within(read, left, () => new Error('frame did not answer'), stop).catch(() => null);
    if (!keys || !/^https?:/.test(keys.origin)) continue;
    for (const [key, length] of keys.local) observations.addStorage('localStorage', keys.origin, key, length);
    for (const [key, length] of keys.session)
      observations.addStorage('sessionStorage', keys.origin, key, length);
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
