import {
  decisionCookieName,
  encodeDecisionCookie,
  readDecisionCookie,
} from '../../src/shared/decision-cookie.ts';
import type { PendingPost, StoredConsent } from './types.ts';

/**
 * The cookie keeps the decision for as long as it is valid (the config's consentMaxAgeDays, 180 by
 * default), refreshed on each decision: it must outlive 180 days when the channel allows 395.
 */
const DAY_S = 24 * 60 * 60;

/** A random hex string from crypto.getRandomValues: `bytes` * 2 characters. */
export function randomId(bytes = 16): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  let out = '';
  for (const b of buf) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

/** Per site, so two channels embedded on one domain keep separate decisions. */
function names(siteKey: string) {
  const safe = siteKey.replace(/[^A-Za-z0-9_-]/g, '');
  return {
    cookie: decisionCookieName(siteKey),
    pending: `cs_pending_${safe}`,
    notice: `cs_notice_${safe}`,
    receipt: `cs_receipt_${safe}`,
  };
}

/** The decision cookie, in the one encoding the service uses too (src/shared/decision-cookie.ts). */
export function readConsent(siteKey: string): StoredConsent | null {
  return readDecisionCookie(document.cookie, siteKey);
}

/**
 * Writes (or, with null, deletes) the decision cookie from the page. `domain`: the channel's
 * cookieDomain, so one decision holds on every subdomain; host-only when the page is not under it.
 * A host-only copy left from before the channel had one is deleted, since the browser would send
 * both and the older, host-only one comes first.
 */
export function writeConsent(
  siteKey: string,
  consent: StoredConsent | null,
  maxAgeDays = 180,
  domain: string | null = null,
) {
  const name = names(siteKey).cookie;
  const host = location.hostname;
  const shared = domain && (host === domain || host.endsWith(`.${domain}`)) ? `; Domain=${domain}` : '';
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const value = consent ? encodeDecisionCookie(consent) : '';
  const maxAge = consent ? maxAgeDays * DAY_S : 0;
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari.
  if (shared) document.cookie = `${name}=; Path=/; Max-Age=0`;
  // biome-ignore lint/suspicious/noDocumentCookie: as above.
  document.cookie = `${name}=${value}; Path=/; Max-Age=${maxAge}; SameSite=Lax${secure}${shared}`;
}

/** localStorage can be absent or throw (privacy modes); the queue then lives only in memory. */
export function readPending(siteKey: string): PendingPost[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(names(siteKey).pending) || '[]');
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

export function writePending(siteKey: string, queue: PendingPost[]) {
  try {
    const key = names(siteKey).pending;
    if (queue.length) localStorage.setItem(key, JSON.stringify(queue));
    else localStorage.removeItem(key);
  } catch {
    // Not persisted: this page still retries from memory.
  }
}

/**
 * The notice a visitor dismissed (`{v: configVersion, t: ms}`), so it is not shown on every page;
 * kept only in this browser (a notice records nothing). null clears it.
 */
export function noticeSeen(siteKey: string, value?: { v: number; t: number } | null) {
  const key = names(siteKey).notice;
  try {
    if (value === undefined) return JSON.parse(localStorage.getItem(key) || 'null');
    if (value) localStorage.setItem(key, JSON.stringify(value));
    else localStorage.removeItem(key);
  } catch {
    // No storage: the notice shows on each page, which is safe.
  }
  return null;
}

/** Forgets the dismissed notice (reset, sign-out): the notice shows again where a regime has one. */
export function forgetNotice(siteKey: string) {
  try {
    localStorage.removeItem(names(siteKey).notice);
  } catch {
    // No storage: nothing was kept.
  }
}

/** Receipt URLs this page could not put in localStorage (absent, or throwing in a privacy mode). */
const unstored: Record<string, string | null> = {};

/**
 * The receipt URL of the visitor's last delivered decision, or null. It is a capability
 * (whoever holds it reads the receipt), so it stays in this browser: localStorage, never a cookie
 * (which would go to the site's server with every request), and in memory when storage is unavailable.
 * A value replaces the previous one; null clears it.
 */
export function receiptUrl(siteKey: string, value?: string | null): string | null {
  const key = names(siteKey).receipt;
  try {
    if (value === undefined) return localStorage.getItem(key) ?? unstored[key] ?? null;
    if (value) localStorage.setItem(key, value);
    else localStorage.removeItem(key);
    delete unstored[key];
  } catch {
    if (value === undefined) return unstored[key] ?? null;
    unstored[key] = value;
    try {
      localStorage.removeItem(key); // a stale one there must not hide this one
    } catch {
      // No storage at all: memory only.
    }
  }
  return null;
}
