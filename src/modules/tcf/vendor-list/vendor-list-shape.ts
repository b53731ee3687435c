import {
  type At,
  at,
  boolean,
  fail,
  finiteNumber,
  httpUrl,
  idList,
  idMap,
  isObject,
  MAX_TEXT_LENGTH,
  optional,
  own,
  root,
  text,
  textTree,
  wholeNumber,
} from './vendor-list-fields.ts';
import { SourceError } from './vendor-list-source.ts';

/**
 * The check of what the host sent before it is stored or used (docs/guides/tcf.md, "What the
 * service accepts from the vendor list host"): the GVL v3 format field by field, with the bounds a
 * TC string and the layers need. The result is a new list made only of the format's fields (what
 * the host added besides is left out, `__proto__` and `constructor` included); a list that fails
 * is a failed fetch, so the mirror keeps the last good one.
 */

/** A TC string carries the vendor list version in 12 bits and the TCF policy version in 6. */
export const MAX_VENDOR_LIST_VERSION = 4095;
export const MAX_TCF_POLICY_VERSION = 63;
/** Vendor ids are 16 bits in a TC string. */
export const MAX_VENDOR_ID = 65_535;
/** Purposes are 24 bits of a TC string, special features 12; the rest are never encoded. */
const MAX_IDS = {
  purposes: 24,
  specialPurposes: 1000,
  features: 1000,
  specialFeatures: 12,
  stacks: 1000,
  dataCategories: 1000,
} as const;
type Declaration = keyof typeof MAX_IDS;
/** The declaration maps of a list and of its language files, in the order IAB lists them. */
export const DECLARATIONS = Object.keys(MAX_IDS) as Declaration[];

const MAX_NAME_LENGTH = 1000;
const MAX_ILLUSTRATIONS = 100;
/** IAB allows 40 languages of links per vendor. */
const MAX_VENDOR_URLS = 100;

export interface CheckedVendorList {
  vendorListVersion: number;
  tcfPolicyVersion: number;
  lastUpdated: Date;
  body: Record<string, unknown>;
  /** About the JSON characters of `body` (within a few percent): what keeping it costs. */
  size: number;
}

type Entry = Record<string, unknown>;

function named(where: At, value: Entry, id: number): Entry {
  const name = own(value, 'name');
  if (typeof name !== 'string') fail(where, 'has no name');
  return { id, name: text(at(where, 'name'), name, MAX_NAME_LENGTH) };
}

const longText = (where: At, value: unknown) => text(where, value, MAX_TEXT_LENGTH);

/** A purpose, special purpose, feature, special feature or data category. */
function declaration(where: At, value: Entry, id: number): Entry {
  const out = named(where, value, id);
  optional(out, value, where, 'description', longText);
  optional(out, value, where, 'descriptionLegal', longText);
  optional(out, value, where, 'illustrations', (w, v) => {
    if (!Array.isArray(v) || v.length > MAX_ILLUSTRATIONS) fail(w, 'is not a list of texts');
    return v.map((item, i) => longText(at(w, i), item));
  });
  optional(out, value, where, 'consentable', boolean);
  optional(out, value, where, 'rightToObject', boolean);
  optional(out, value, where, 'standardTexts', textTree);
  return out;
}

function stack(where: At, value: Entry, id: number): Entry {
  const out = named(where, value, id);
  optional(out, value, where, 'description', longText);
  optional(out, value, where, 'purposes', (w, v) => idList(w, v, MAX_IDS.purposes));
  optional(out, value, where, 'specialFeatures', (w, v) => idList(w, v, MAX_IDS.specialFeatures));
  return out;
}

/** What a vendor declares by id, and the highest id each may name. */
const VENDOR_ID_LISTS: Array<[string, number]> = [
  ['purposes', MAX_IDS.purposes],
  ['legIntPurposes', MAX_IDS.purposes],
  ['flexiblePurposes', MAX_IDS.purposes],
  ['specialPurposes', MAX_IDS.specialPurposes],
  ['features', MAX_IDS.features],
  ['specialFeatures', MAX_IDS.specialFeatures],
  ['dataDeclaration', MAX_IDS.dataCategories],
];

/** Retention in days by purpose id (`dataRetention.purposes`, `.specialPurposes`). */
function daysById(where: At, value: unknown): Record<string, number> {
  return idKeyed(where, value, (w, v) => finiteNumber(w, v));
}

function idKeyed<T>(where: At, value: unknown, read: (where: At, value: unknown) => T): Record<string, T> {
  if (!isObject(value)) fail(where, 'is not a map keyed by id');
  const out: Record<string, T> = {};
  for (const key of Object.keys(value)) {
    if (!/^\d{1,4}$/.test(key)) fail(where, 'is not a map keyed by id');
    out[key] = read(at(where, key), value[key]);
  }
  return out;
}

function vendorUrls(where: At, value: unknown): Entry[] {
  if (!Array.isArray(value) || value.length > MAX_VENDOR_URLS) fail(where, 'is not a list of links');
  return value.map((item, i) => {
    const w = at(where, i);
    if (!isObject(item)) fail(w, 'is not an object');
    const out: Entry = { langId: text(at(w, 'langId'), own(item, 'langId'), 35) };
    optional(out, item, w, 'privacy', httpUrl);
    optional(out, item, w, 'legIntClaim', httpUrl);
    return out;
  });
}

/**
 * Seconds a vendor's longest cookie lasts: 0 is a session cookie. The format reads a negative number
 * as a session cookie too (as Set-Cookie does); it is kept as 0, so that nothing downstream ever
 * shows a negative duration, and one vendor's spelling does not cost every channel the list.
 */
function cookieMaxAge(where: At, value: unknown): number | null {
  if (value === null) return null;
  const seconds = finiteNumber(where, value);
  return seconds < 0 ? 0 : Math.round(seconds);
}

function vendor(where: At, value: Entry, id: number): Entry {
  const out = named(where, value, id);
  for (const [list, maxId] of VENDOR_ID_LISTS) {
    optional(out, value, where, list, (w, v) => {
      if (!Array.isArray(v)) fail(w, 'is not a list of ids');
      return idList(w, v, maxId);
    });
  }
  optional(out, value, where, 'policyUrl', httpUrl);
  optional(out, value, where, 'usesCookies', boolean);
  optional(out, value, where, 'cookieMaxAgeSeconds', cookieMaxAge);
  optional(out, value, where, 'cookieRefresh', (w, v) => (v === null ? null : boolean(w, v)));
  optional(out, value, where, 'usesNonCookieAccess', boolean);
  optional(out, value, where, 'deviceStorageDisclosureUrl', httpUrl);
  optional(out, value, where, 'deletedDate', (w, v) => text(w, v, 64));
  optional(out, value, where, 'overflow', (w, v) => {
    if (!isObject(v)) fail(w, 'is not an object');
    return { httpGetLimit: wholeNumber(at(w, 'httpGetLimit'), own(v, 'httpGetLimit'), 1, 1_000_000) };
  });
  optional(out, value, where, 'dataRetention', (w, v) => {
    if (!isObject(v)) fail(w, 'is not an object');
    const retention: Entry = {};
    optional(retention, v, w, 'stdRetention', finiteNumber);
    optional(retention, v, w, 'purposes', daysById);
    optional(retention, v, w, 'specialPurposes', daysById);
    return retention;
  });
  optional(out, value, where, 'urls', vendorUrls);
  return out;
}

/** The declarations of a list or a language file; `required` must be there. */
function declarations(where: At, body: Record<string, unknown>, required: Declaration[]) {
  const out: Record<string, unknown> = {};
  for (const field of DECLARATIONS) {
    const value = own(body, field);
    if (value === undefined && !required.includes(field)) continue;
    out[field] = idMap(at(where, field), value, MAX_IDS[field], field === 'stacks' ? stack : declaration);
  }
  return out;
}

function header(where: At, body: Record<string, unknown>) {
  const lastUpdated = text(at(where, 'lastUpdated'), own(body, 'lastUpdated'), 64);
  if (Number.isNaN(Date.parse(lastUpdated))) fail(at(where, 'lastUpdated'), 'is not a date');
  return {
    gvlSpecificationVersion: own(body, 'gvlSpecificationVersion'),
    vendorListVersion: wholeNumber(
      at(where, 'vendorListVersion'),
      own(body, 'vendorListVersion'),
      1,
      MAX_VENDOR_LIST_VERSION,
    ),
    tcfPolicyVersion: wholeNumber(
      at(where, 'tcfPolicyVersion'),
      own(body, 'tcfPolicyVersion'),
      1,
      MAX_TCF_POLICY_VERSION,
    ),
    lastUpdated,
  };
}

/** `vendor-list.json` of GVL v3, checked and cut down to the format's fields, or a SourceError. */
export function checkVendorList(body: unknown, name = 'vendor-list.json'): CheckedVendorList {
  if (!isObject(body)) throw new SourceError(`${name} is not a JSON object`);
  if (own(body, 'gvlSpecificationVersion') !== 3) {
    throw new SourceError(`${name}: gvlSpecificationVersion is not 3 (only the v3 format is read)`);
  }
  const where = root(name);
  const head = header(where, body);
  const checked: Record<string, unknown> = {
    ...head,
    ...declarations(where, body, ['purposes', 'specialPurposes', 'features', 'specialFeatures', 'stacks']),
    vendors: idMap(at(where, 'vendors'), own(body, 'vendors'), MAX_VENDOR_ID, vendor),
  };
  optional(checked, body, where, 'standardTexts', textTree);
  // The sample list (data/tcf-sample-gvl) says so here; kept, so test channels only use it.
  optional(checked, body, where, '_sample', (w, v) => text(w, v, 1000));
  return {
    vendorListVersion: head.vendorListVersion,
    tcfPolicyVersion: head.tcfPolicyVersion,
    lastUpdated: new Date(head.lastUpdated),
    body: checked,
    size: where.size.chars,
  };
}

/** Whether a checked list is the sample one shipped to try TCF offline (its `_sample` marker). */
export const isSampleVendorList = (body: Record<string, unknown>): boolean =>
  typeof body._sample === 'string';

/** `purposes-<lang>.json`: the declarations translated (no vendors), cut down the same way. */
export function checkLanguageFile(body: unknown, name: string): Record<string, unknown> {
  if (!isObject(body)) throw new SourceError(`${name} is not a JSON object`);
  const where = root(name);
  const checked: Record<string, unknown> = declarations(where, body, ['purposes']);
  optional(checked, body, where, 'gvlSpecificationVersion', (w, v) => wholeNumber(w, v, 1, 99));
  optional(checked, body, where, 'vendorListVersion', (w, v) =>
    wholeNumber(w, v, 1, MAX_VENDOR_LIST_VERSION),
  );
  optional(checked, body, where, 'tcfPolicyVersion', (w, v) => wholeNumber(w, v, 1, MAX_TCF_POLICY_VERSION));
  optional(checked, body, where, 'lastUpdated', (w, v) => text(w, v, 64));
  optional(checked, body, where, 'standardTexts', textTree);
  return checked;
}
