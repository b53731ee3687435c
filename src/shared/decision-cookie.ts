/**
 * The decision cookie, `cs_consent_<siteKey>`: one value whoever writes it. The browser SDK writes
 * it with `document.cookie` where the site has no first-party path; where it has one, the service
 * sets the same value in `Set-Cookie` on the answers that come through the path (WebKit keeps
 * what a site's server sets, and deletes what page scripts write after 7 days without a visit).
 * Both read and write it through this file (docs/guides/keep-the-choice.md), so the SDK reads what
 * the service set and the service refreshes what the SDK wrote.
 *
 * The value is the JSON of a StoredDecision, percent-encoded (encodeURIComponent), which leaves only
 * characters a cookie value may hold.
 */

/** What the decision cookie holds. */
export interface StoredDecision {
  /** The visitor's opaque id (the subjectId of their decisions), random, kept across decisions. */
  s: string;
  /** The last decision: purpose key to "granted" or "denied". */
  d?: Record<string, 'granted' | 'denied'>;
  /** The configVersion it answered. */
  v?: number;
  /** When it was made, in milliseconds since the epoch. */
  t?: number;
  /** 1 when the decision is the SDK's record of a GPC signal (source gpc), not the visitor's own. */
  g?: 1;
}

/** The shortest visitor id a cookie may carry and still be read: the SDK's own are 32 characters. */
export const MIN_STORED_SUBJECT_ID = 16;

/** The cookie's name for a site (per site, so two channels embedded on one domain keep separate decisions). */
export function decisionCookieName(siteKey: string): string {
  return `cs_consent_${siteKey.replace(/[^A-Za-z0-9_-]/g, '')}`;
}

/** The cookie value of a decision. */
export function encodeDecisionCookie(value: StoredDecision): string {
  return encodeURIComponent(JSON.stringify(value));
}

/**
 * A cookie value read back, or null when it is not one: it must decode and carry a visitor id of
 * at least MIN_STORED_SUBJECT_ID characters. A value that cannot be read is treated as absent (the
 * visitor is asked again), never as an error.
 */
export function decodeDecisionCookie(raw: string): StoredDecision | null {
  try {
    const value = JSON.parse(decodeURIComponent(raw));
    if (value && typeof value.s === 'string' && value.s.length >= MIN_STORED_SUBJECT_ID) return value;
  } catch {
    // Not ours, or damaged.
  }
  return null;
}

/**
 * The site's decision cookie in a cookie string (`document.cookie`, or a request's Cookie header:
 * `name=value; name=value`), or null. The first one that decodes wins.
 */
export function readDecisionCookie(cookies: string, siteKey: string): StoredDecision | null {
  const prefix = `${decisionCookieName(siteKey)}=`;
  for (const part of cookies.split(/;\s*/)) {
    if (!part.startsWith(prefix)) continue;
    const value = decodeDecisionCookie(part.slice(prefix.length));
    if (value) return value;
  }
  return null;
}

/**
 * At sign-in (docs/guides/signed-in-visitors.md), whether this device's own choice is newer than the
 * account's, made at `accountAt` (ms): then it holds here and is recorded for the account; else the
 * account's choice replaces it. A GPC record is the browser's, not the visitor's own choice.
 */
export function deviceChoiceIsNewer(device: StoredDecision | null, accountAt: number): boolean {
  return !!device?.d && !device.g && typeof device.t === 'number' && !(accountAt >= device.t);
}
