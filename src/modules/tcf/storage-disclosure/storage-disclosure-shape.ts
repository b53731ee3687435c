import {
  type At,
  at,
  boolean,
  fail,
  idList,
  isObject,
  optional,
  own,
  root,
  text,
  wholeNumber,
} from '../vendor-list/vendor-list-fields.ts';
import { SourceError } from '../vendor-list/vendor-list-source.ts';

/**
 * The check of a vendor's device storage disclosure (IAB's "Vendor Device Storage & Operational
 * Disclosures" JSON, at the vendor's `deviceStorageDisclosureUrl`) before it is stored and shown:
 * the fields the layers show, with their types and bounds, cut down to those fields. The vendor's
 * host is less trusted still than IAB's: a file that fails is a failed fetch for that vendor only.
 */

/** Entries kept of each array: a vendor with more is shown with the first ones (the rest is cut). */
export const MAX_DISCLOSURES = 200;
export const MAX_DOMAINS = 100;
/** Longest identifier, domain or description kept. */
const MAX_NAME = 255;
const MAX_DESCRIPTION = 1000;
/** A cookie lasting more than 100 years is a mistake of the vendor's, not a duration to show. */
const MAX_AGE_SECONDS = 100 * 365 * 86_400;
const STORAGE_TYPES = new Set(['cookie', 'web', 'app']);

export interface StorageDisclosure {
  disclosures: Array<{
    identifier: string;
    type: 'cookie' | 'web' | 'app';
    /** Cookies only: 0 a session cookie; null for other types. */
    maxAgeSeconds: number | null;
    cookieRefresh?: boolean;
    domains?: string[];
    purposes: number[];
    specialPurposes?: number[];
    description?: string;
  }>;
  domains: Array<{ domain: string; use?: string }>;
}

const name = (where: At, value: unknown) => text(where, value, MAX_NAME);

function disclosure(where: At, value: unknown): StorageDisclosure['disclosures'][number] {
  if (!isObject(value)) fail(where, 'is not an object');
  const type = own(value, 'type');
  if (typeof type !== 'string' || !STORAGE_TYPES.has(type))
    fail(at(where, 'type'), 'is not cookie, web or app');
  const out: Record<string, unknown> = {
    identifier: name(at(where, 'identifier'), own(value, 'identifier')),
    type,
    purposes: idList(at(where, 'purposes'), own(value, 'purposes') ?? [], 24),
  };
  const maxAge = own(value, 'maxAgeSeconds');
  // A negative age is what Set-Cookie calls a session cookie too: kept as 0, the format's own word for it.
  out.maxAgeSeconds =
    type !== 'cookie' || maxAge === null || maxAge === undefined
      ? null
      : typeof maxAge === 'number' && maxAge < 0
        ? 0
        : wholeNumber(at(where, 'maxAgeSeconds'), maxAge, 0, MAX_AGE_SECONDS);
  optional(out, value, where, 'cookieRefresh', boolean);
  optional(out, value, where, 'specialPurposes', (w, v) => idList(w, v, 1000));
  optional(out, value, where, 'description', (w, v) => text(w, v, MAX_DESCRIPTION));
  // `domain` is the older spelling of a one-entry `domains`.
  const domains =
    own(value, 'domains') ?? (own(value, 'domain') === undefined ? undefined : [own(value, 'domain')]);
  if (domains !== undefined) {
    if (!Array.isArray(domains)) fail(at(where, 'domains'), 'is not a list of domains');
    out.domains = domains.slice(0, MAX_DOMAINS).map((d, i) => name(at(at(where, 'domains'), i), d));
  }
  return out as StorageDisclosure['disclosures'][number];
}

/** A vendor's disclosure file, checked and cut down, or a SourceError naming what is wrong. */
export function checkStorageDisclosure(
  body: unknown,
  file = 'deviceStorageDisclosureUrl',
): StorageDisclosure {
  if (!isObject(body)) throw new SourceError(`${file} is not a JSON object`);
  const where = root(file);
  const list = own(body, 'disclosures');
  if (!Array.isArray(list)) fail(at(where, 'disclosures'), 'is not a list');
  const domains = own(body, 'domains') ?? [];
  if (!Array.isArray(domains)) fail(at(where, 'domains'), 'is not a list');
  return {
    disclosures: list.slice(0, MAX_DISCLOSURES).map((d, i) => disclosure(at(at(where, 'disclosures'), i), d)),
    domains: domains.slice(0, MAX_DOMAINS).map((d, i) => {
      const w = at(at(where, 'domains'), i);
      if (!isObject(d)) fail(w, 'is not an object');
      const out: { domain: string; use?: string } = { domain: name(at(w, 'domain'), own(d, 'domain')) };
      const use = own(d, 'use');
      if (use !== undefined) out.use = text(at(w, 'use'), use, MAX_DESCRIPTION);
      return out;
    }),
  };
}
