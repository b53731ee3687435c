import { Bits, base64urlValues } from '../../../src/shared/base64url-bits.ts';

/**
 * Readers of the cookies other CMPs write, for a channel moving from them (`imports`,
 * docs/guides/keep-the-choice.md). Their values come from the visitor's browser, so each reader is
 * defensive: bounded in what it walks, never throwing, and null for anything that is not a whole,
 * explicit choice (the visitor is then asked).
 */

/** An old CMP's choice: its category ids to whether they were allowed, and when (ms since the epoch). */
export interface CmpChoice {
  categories: Record<string, boolean>;
  recordedAt: number;
}

/** The longest cookie value read: the service keeps the raw value with the evidence, up to this. */
export const MAX_COOKIE_VALUE = 4096;
const MAX_CATEGORIES = 64;

/**
 * OneTrust's `OptanonConsent`: a query string whose `groups` is `C0001:1,C0002:0,…` and whose
 * `datestamp` is the time of the choice as JavaScript's Date#toString writes it (which Date.parse
 * reads back in every browser).
 */
export function readOneTrust(value: string): CmpChoice | null {
  if (value.length > MAX_COOKIE_VALUE) return null;
  const params = new URLSearchParams(value);
  const groups = (params.get('groups') || '').split(',');
  const recordedAt = Date.parse((params.get('datestamp') || '').replace(/\s*\(.*$/, ''));
  if (groups.length > MAX_CATEGORIES || Number.isNaN(recordedAt)) return null;
  const categories: Record<string, boolean> = {};
  for (const group of groups) {
    const match = /^(C\d{4}):([01])$/.exec(group);
    if (!match) return null;
    categories[match[1]] = match[2] === '1';
  }
  return { categories, recordedAt };
}

/**
 * Cookiebot's `CookieConsent`: a JavaScript object literal, percent-encoded
 * (`{stamp:'…',necessary:true,preferences:false,statistics:true,marketing:false,method:'explicit',ver:1,utc:1700000000000,…}`).
 * Only an explicit choice with a stamp is one: `method:'implied'` was made for the visitor where
 * no consent was asked, and stamp `-1` or `0` mark no choice at all.
 */
export function readCookiebot(value: string): CmpChoice | null {
  let text: string;
  if (value.length > MAX_COOKIE_VALUE) return null;
  try {
    text = decodeURIComponent(value);
  } catch {
    return null;
  }
  const fields: Record<string, string> = {};
  for (const [, key, raw] of text.matchAll(/([a-z]{1,20}):('[^']{0,200}'|true|false|\d{1,16})/g)) {
    fields[key] = raw;
  }
  const stamp = fields.stamp?.slice(1, -1);
  const recordedAt = Number(fields.utc);
  if (!stamp || stamp === '-1' || stamp === '0' || fields.method === "'implied'" || !(recordedAt > 0))
    return null;
  const categories: Record<string, boolean> = {};
  for (const key of ['preferences', 'statistics', 'marketing']) {
    if (fields[key] !== 'true' && fields[key] !== 'false') return null;
    categories[key] = fields[key] === 'true';
  }
  return { categories, recordedAt };
}

/** Where the core segment of a TC string (version 2) keeps what an import reads, in bits. */
const LAST_UPDATED_AT = 42;
const PURPOSE_CONSENTS_AT = 152;
const PURPOSES = 24;

/**
 * An IAB TCF CMP's `euconsent-v2`: a TC string, of which the core segment's LastUpdated
 * (deciseconds) and purpose consents (purposes 1–24) are read straight from its bits, after
 * checking its characters and version.
 */
export function readTcf(value: string): CmpChoice | null {
  if (value.length > MAX_COOKIE_VALUE) return null;
  const values = base64urlValues(value.split('.')[0]);
  if (!values || values.length < Math.ceil((PURPOSE_CONSENTS_AT + PURPOSES) / 6)) return null;
  const bits = new Bits(values);
  if (bits.int(6) !== 2) return null;
  bits.position = LAST_UPDATED_AT;
  const recordedAt = bits.int(36) * 100;
  bits.position = PURPOSE_CONSENTS_AT;
  const categories: Record<string, boolean> = {};
  for (let purpose = 1; purpose <= PURPOSES; purpose++) categories[String(purpose)] = bits.bit() === 1;
  return recordedAt > 0 ? { categories, recordedAt } : null;
}
