/**
 * Bounds a TC string before `@iabtechlabtcf/core` decodes it. Why: a decoder's worst case is the
 * attacker's best case. A TC string lists vendor ids as ranges (a 12-bit count of entries; per
 * entry a "range" flag, a 16-bit first id and, for a range, a 16-bit last id), and the library
 * walks every range one id at a time: measured on this library, a 600-character string of 100
 * ranges 1..65535 took 193 ms of the event loop to decode, and a 9,948-character one of 1,800 such
 * ranges 3.5 s. Publisher restrictions hold the same ranges. A string the service's SDK makes
 * names each of the channel's (at most 1,000) vendors once.
 *
 * So this reads only the sizes the library would walk (never a value the service keeps: those
 * come from the library, tc-string.ts) and refuses, without expanding anything, a string that is
 * too long, has too many segments, is not TCF v2, or would make the decoder visit more than
 * MAX_VISITED_IDS vendor ids in all (ranges at their length, bit fields at their maxId). That is
 * O(length). Encoding: IAB TCF "Consent string and vendor list formats" v2, core string,
 * DisclosedVendors, AllowedVendors and PublisherTC segments.
 *
 * Given the channel's highest vendor id, it also refuses a range entry of the vendor consents,
 * legitimate interests or DisclosedVendors that reaches past it: every id of a range is set, so
 * such a string names a vendor the channel did not choose (the rule tc_vendor_not_selected of
 * tc-string-rules.ts), and is refused before the decoder expands it (one range 1..19,999 is a
 * 51-character string). Bit fields are left to the decoded rules: a bit field's maxId says how
 * many bits follow, not that the last one is set.
 */

import { Bits, BitsEnded, base64urlValues } from '../../../shared/base64url-bits.ts';

/** The longest TC string accepted (the request schema's bound too). */
export const MAX_TC_STRING_LENGTH = 10_000;
/** Core, DisclosedVendors, AllowedVendors and PublisherTC: a string has at most one of each. */
export const MAX_SEGMENTS = 4;
/**
 * How many vendor ids the decoder may visit over the whole string. A string of this service's CMP
 * names at most 1,000 vendors of IAB's list, whose ids run to about 1,500 today: its four vendor
 * vectors visit a few thousand ids. 20,000 leaves room for ids up to 5,000 in all four. Measured
 * (tc-string.test.ts; about 0.7 µs per distinct id on the test machine): about 15 ms at the bound,
 * against 0.5 s for a 600-character string of 100 ranges without it.
 */
export const MAX_VISITED_IDS = 20_000;

/** Version (6), Created and LastUpdated (36 each), CmpId, CmpVersion (12 each), ConsentScreen (6),
 * ConsentLanguage, VendorListVersion (12 each), TcfPolicyVersion (6), IsServiceSpecific and
 * UseNonStandardTexts (1 each), SpecialFeatureOptIns (12), PurposesConsent and PurposesLITransparency
 * (24 each), PurposeOneTreatment (1), PublisherCC (12): the core string's fixed part. */
const CORE_FIXED_BITS = 213;
const SEGMENT_TYPE = { core: 0, disclosedVendors: 1, allowedVendors: 2 } as const;

class Refused extends Error {
  constructor(
    message: string,
    readonly rule?: 'tc_vendor_not_selected',
  ) {
    super(message);
  }
}

/** Why a string is refused before decoding; `rule` when it breaks one of the named rules. */
export interface BoundsRefusal {
  message: string;
  rule?: 'tc_vendor_not_selected';
}
/** Counts what the library visits, and refuses once it is more than MAX_VISITED_IDS. */
class Visits {
  total = 0;
  add(ids: number): void {
    this.total += ids;
    if (this.total > MAX_VISITED_IDS) {
      throw new Refused(`it makes the decoder visit more than ${MAX_VISITED_IDS} vendor ids`);
    }
  }
}

/**
 * NumEntries range entries: each one id, or first..last (the library walks nothing when last < first).
 * With `highest`, an entry that sets an id above it is refused.
 */
function rangeEntries(bits: Bits, visits: Visits, highest = Number.POSITIVE_INFINITY): void {
  const entries = bits.int(12);
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bit() === 1;
    const first = bits.int(16);
    const last = isRange ? bits.int(16) : first;
    if (last >= first && last > highest) {
      throw new Refused(
        `names vendor ${last}, which this channel did not choose (its highest vendor id is ${highest})`,
        'tc_vendor_not_selected',
      );
    }
    visits.add(Math.max(0, last - first + 1));
  }
}

/** A vendor vector: MaxVendorId, IsRangeEncoding, then a bit field or range entries. */
function vendorVector(bits: Bits, visits: Visits, highest?: number): void {
  const maxId = bits.int(16);
  if (bits.bit() === 1) rangeEntries(bits, visits, highest);
  else {
    visits.add(maxId);
    bits.skip(maxId);
  }
}

/** NumPubRestrictions, each a purpose (6), a restriction type (2) and range entries. */
function publisherRestrictions(bits: Bits, visits: Visits): void {
  const restrictions = bits.int(12);
  for (let i = 0; i < restrictions; i++) {
    bits.skip(8);
    rangeEntries(bits, visits);
  }
}

function readSegment(segment: string, first: boolean, visits: Visits, highest?: number): void {
  if (segment.length === 0) throw new Refused('it has an empty segment');
  const values = base64urlValues(segment);
  if (values === null) throw new Refused('it is not base64url');
  const bits = new Bits(values);
  // The library reads a segment's type from its first 3 bits; the core string has none (its
  // version, 2, starts with three 0 bits, read as type 0).
  const type = bits.int(3);
  if (type === SEGMENT_TYPE.core) {
    bits.position = 0;
    const version = bits.int(6);
    if (version !== 2) throw new Refused(`its version is ${version}; only TCF v2 strings are accepted`);
    if (!first) throw new Refused('its core string is not its first segment');
    bits.skip(CORE_FIXED_BITS - 6);
    vendorVector(bits, visits, highest);
    vendorVector(bits, visits, highest);
    publisherRestrictions(bits, visits);
  } else if (type === SEGMENT_TYPE.disclosedVendors) {
    vendorVector(bits, visits, highest);
  } else if (type === SEGMENT_TYPE.allowedVendors) {
    vendorVector(bits, visits);
  }
  // PublisherTC (3) has fixed fields and at most 63 custom purposes; other types the library refuses.
}

/**
 * Null when the string is within the bounds above (it may still not decode: the library decides
 * that), else why it is refused, phrased to follow "is not a TC string this service accepts: "
 * (or, with a rule, to stand on its own). `highestVendorId`: the channel's highest chosen vendor id.
 */
export function tcStringBoundsError(value: string, highestVendorId?: number): BoundsRefusal | null {
  if (value.length > MAX_TC_STRING_LENGTH) {
    return { message: `it is longer than ${MAX_TC_STRING_LENGTH} characters` };
  }
  const segments = value.split('.', MAX_SEGMENTS + 1);
  if (segments.length > MAX_SEGMENTS) return { message: `it has more than ${MAX_SEGMENTS} segments` };
  const visits = new Visits();
  try {
    segments.forEach((segment, i) => {
      try {
        readSegment(segment, i === 0, visits, highestVendorId);
      } catch (error) {
        if (!(error instanceof BitsEnded)) throw error;
      }
    });
  } catch (error) {
    if (error instanceof Refused)
      return error.rule ? { message: error.message, rule: error.rule } : { message: error.message };
    throw error;
  }
  return null;
}
