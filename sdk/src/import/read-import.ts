import type { ImportedChoice, SiteConfig } from '../types.ts';
import { type CmpChoice, MAX_COOKIE_VALUE, readCookiebot, readOneTrust, readTcf } from './cmp-cookies.ts';

type Cmp = 'onetrust' | 'cookiebot' | 'tcf';

/** Each CMP's cookie and its reader. */
const READERS: Record<Cmp, [cookie: string, read: (value: string) => CmpChoice | null]> = {
  onetrust: ['OptanonConsent', readOneTrust],
  cookiebot: ['CookieConsent', readCookiebot],
  tcf: ['euconsent-v2', readTcf],
};

const DAY_MS = 86_400_000;
/** How far ahead of this browser's clock a choice may be dated: clocks drift. */
const SKEW_MS = 5 * 60_000;

/** A cookie's raw value in a cookie string, when it is printable ASCII within MAX_COOKIE_VALUE. */
function cookieValue(cookies: string, name: string): string | null {
  for (const part of cookies.split(/;\s*/)) {
    if (!part.startsWith(`${name}=`)) continue;
    const value = part.slice(name.length + 1);
    return value.length <= MAX_COOKIE_VALUE && /^[\x20-\x7e]+$/.test(value) ? value : null;
  }
  return null;
}

/**
 * The visitor's choice from the first of the channel's previous CMPs (`config.imports`, in order)
 * whose cookie holds one that can stand for a decision here: it parses, it is younger than
 * consentMaxAgeDays, and every optional purpose of the channel is mapped from categories the cookie
 * has (a purpose mapped from several is granted only when all of them were). Null otherwise: the
 * visitor is asked.
 */
export function readImport(cookies: string, config: SiteConfig, now: number): ImportedChoice | null {
  const optional = config.purposes.filter((p) => !p.required);
  const maxAgeMs = (config.consentMaxAgeDays ?? 180) * DAY_MS;
  for (const entry of config.imports || []) {
    const [name, read] = READERS[entry.from] || [];
    const value = name ? cookieValue(cookies, name) : null;
    const old = value ? read(value) : null;
    if (!value || !old || old.recordedAt > now + SKEW_MS || now - old.recordedAt >= maxAgeMs) continue;
    const choice: Record<string, boolean> = {};
    const complete = optional.every((purpose) => {
      const theirs = Object.keys(entry.purposes).filter((id) => entry.purposes[id] === purpose.key);
      if (!theirs.length || theirs.some((id) => !(id in old.categories))) return false;
      choice[purpose.key] = theirs.every((id) => old.categories[id]);
      return true;
    });
    if (!complete || !optional.length) continue;
    const recordedAt = new Date(Math.floor(old.recordedAt / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    return { choice, importedFrom: { cmp: entry.from, recordedAt, value } };
  }
  return null;
}
