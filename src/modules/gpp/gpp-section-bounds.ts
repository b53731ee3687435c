/**
 * Bounds what `@iabgpp/cmpapi` would expand in a GPP string's sections, before it sees them. Why: a
 * decoder's worst case is the attacker's best case. The library turns every vendor range into an
 * array one id at a time; a 603-character tcfeuv2 section of 100 ranges 1..65535 is 6.5 million ids,
 * and ran the decoder out of memory (the header bounds, gpp-bounds.ts, cannot see it).
 *
 * So this reads, without expanding anything, the sizes the library would walk in the sections that
 * hold vendor ranges (IAB Global Privacy Platform, "Consent String Specification": tcfeuv2, id 2,
 * the TCF v2 string's segments; tcfcav1, id 5, the TCF Canada string's) and refuses a string whose
 * sections would make the decoder expand more than MAX_EXPANDED_IDS vendor ids in all, or that name
 * a vendor id above MAX_VENDOR_ID. The other sections (uspv1, usnat and the US states) are fixed-size
 * fields only. O(length). The decoder's own child counts the same ids where the library expands them
 * (gpp-decode-child.mjs), so a reading this file gets wrong still cannot take the decoder down.
 *
 * The library's layouts, which this follows:
 * - OptimizedRange: MaxId (16 bits), IsRange (1); then a bit field of MaxId bits, or a range list.
 * - Fixed range list: NumEntries (12); per entry IsRange (1), an id (16) and for a range a last id (16).
 * - Fibonacci range list: NumEntries (12); per entry IsRange (1), the Fibonacci-coded offset from the
 *   previous id, and for a range the Fibonacci-coded length past its first id.
 * - Array of ranges (publisher restrictions): NumEntries (12); per entry a purpose (6), a type (2)
 *   and a range: a fixed range list in tcfeuv2, an OptimizedRange of Fibonacci lists in tcfcav1.
 * The library reads a tcfcav1 segment as the Fibonacci layout first, then, if that does not give
 * back the same bits, as the older fixed layout, and then the Fibonacci one again: it is counted so.
 */

import { Bits, BitsEnded, base64urlValues } from '../../shared/base64url-bits.ts';

/**
 * How many vendor ids a whole GPP string may make the decoder expand. The tcfeuv2 section is a TC
 * string, which the TC string checks bound the same way (20,000: a string of this service's CMP
 * names at most 1,000 vendors of IAB's list, whose ids run to about 1,500 today). Measured: about
 * 3 ms of the decoder at the bound.
 */
export const MAX_EXPANDED_IDS = 20_000;
/** Vendor ids are 16-bit in both TCF strings (their MaxVendorId field). */
export const MAX_VENDOR_ID = 65_535;

const TCF_EU_V2 = 2;
const TCF_CA_V1 = 5;
/** The core segments' fixed fields before the first vendor range: tcfeuv2's (as a TC string's) and tcfcav1's. */
const TCF_EU_CORE_FIXED_BITS = 213;
const TCF_CA_CORE_FIXED_BITS = 199;
/** The segment type (3 bits) that starts every other segment. */
const SEGMENT_TYPE_BITS = 3;

/** Fibonacci weights (1, 2, 3, 5, …) up to the first above MAX_VENDOR_ID. */
const WEIGHTS: number[] = [1, 2];
while (WEIGHTS[WEIGHTS.length - 1] <= MAX_VENDOR_ID) {
  WEIGHTS.push(WEIGHTS[WEIGHTS.length - 1] + WEIGHTS[WEIGHTS.length - 2]);
}

class Refused extends Error {}
const aboveMaxId = () => new Refused(`its sections name a vendor id above ${MAX_VENDOR_ID}`);
/**
 * A Fibonacci code word (ends at the first two 1s in a row); refused once its value passes `max`.
 */
function fibonacci(bits: Bits, max: number): number {
  let value = 0;
  let previous = 0;
  for (let i = 0; ; i++) {
    const bit = bits.bit();
    if (bit === 1 && previous === 1) return value;
    // The word goes on, and its last weighted bit is a 1: its value is at least this bit's weight.
    if (i >= WEIGHTS.length || WEIGHTS[i] > max) throw aboveMaxId();
    value += bit * WEIGHTS[i];
    if (value > max) throw aboveMaxId();
    previous = bit;
  }
}

/** The ids the decoder would expand, over the whole string. */
class Expansion {
  private total = 0;
  add(ids: number): void {
    this.total += ids;
    if (this.total > MAX_EXPANDED_IDS) {
      throw new Refused(`its sections make the decoder expand more than ${MAX_EXPANDED_IDS} vendor ids`);
    }
  }
}

type RangeList = (bits: Bits, expansion: Expansion) => void;

const fixedRangeList: RangeList = (bits, expansion) => {
  const entries = bits.int(12);
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bit() === 1;
    const first = bits.int(16);
    // The library walks first..last; nothing when last < first.
    expansion.add(isRange ? Math.max(0, bits.int(16) - first + 1) : 1);
  }
};

const fibonacciRangeList: RangeList = (bits, expansion) => {
  const entries = bits.int(12);
  let last = 0;
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bit() === 1;
    last += fibonacci(bits, MAX_VENDOR_ID - last);
    if (isRange) {
      const length = fibonacci(bits, MAX_VENDOR_ID - last);
      last += length;
      expansion.add(length + 1);
    } else expansion.add(1);
  }
};

/** MaxId, IsRange, then a bit field of MaxId bits (walked bit by bit) or a range list. */
function optimizedRange(bits: Bits, expansion: Expansion, list: RangeList): void {
  const maxId = bits.int(16);
  if (bits.bit() === 1) list(bits, expansion);
  else {
    bits.skip(maxId);
    expansion.add(maxId);
  }
}

/** Publisher restrictions: NumEntries, each a purpose (6), a restriction type (2) and its ids. */
function arrayOfRanges(bits: Bits, ids: (bits: Bits) => void): void {
  const entries = bits.int(12);
  for (let i = 0; i < entries; i++) {
    bits.skip(8);
    ids(bits);
  }
}

/** One reading of a segment's bits: what it expands until its bits end (there the library stops too). */
function reading(values: Uint8Array, read: (bits: Bits) => void): void {
  try {
    read(new Bits(values));
  } catch (error) {
    if (!(error instanceof BitsEnded)) throw error;
  }
}

function tcfEuSegment(values: Uint8Array, kind: string, expansion: Expansion): void {
  // The library picks the segment by its first character (its first 3 bits, the segment type).
  if (kind === 'core') {
    reading(values, (bits) => {
      bits.skip(TCF_EU_CORE_FIXED_BITS);
      optimizedRange(bits, expansion, fixedRangeList);
      optimizedRange(bits, expansion, fixedRangeList);
      arrayOfRanges(bits, (b) => fixedRangeList(b, expansion));
    });
  } else if (kind === 'disclosed' || kind === 'allowed') {
    reading(values, (bits) => {
      bits.skip(SEGMENT_TYPE_BITS);
      optimizedRange(bits, expansion, fixedRangeList);
    });
  }
  // The publisher purposes segment has fixed fields and at most 63 custom purposes.
}

/** tcfcav1's two layouts of the same fields: its range lists, and a restriction's ids. */
const TCF_CA_LAYOUTS = {
  fibonacci: {
    list: fibonacciRangeList,
    restriction: (bits: Bits, expansion: Expansion) => optimizedRange(bits, expansion, fibonacciRangeList),
  },
  fixed: { list: fixedRangeList, restriction: fixedRangeList },
};

function tcfCaSegment(values: Uint8Array, kind: string, expansion: Expansion): void {
  if (kind !== 'core' && kind !== 'disclosed') return;
  const read =
    ({ list, restriction }: (typeof TCF_CA_LAYOUTS)['fixed']) =>
    (bits: Bits) => {
      if (kind === 'disclosed') {
        bits.skip(SEGMENT_TYPE_BITS);
        optimizedRange(bits, expansion, list);
        return;
      }
      bits.skip(TCF_CA_CORE_FIXED_BITS);
      optimizedRange(bits, expansion, list);
      optimizedRange(bits, expansion, list);
      arrayOfRanges(bits, (b) => restriction(b, expansion));
    };
  // Fibonacci (twice: when neither layout gives the bits back, the library decodes it again), then fixed.
  reading(values, read(TCF_CA_LAYOUTS.fibonacci));
  reading(values, read(TCF_CA_LAYOUTS.fibonacci));
  reading(values, read(TCF_CA_LAYOUTS.fixed));
}

/** Which segment the library takes a segment for, from its first character. */
function segmentKind(first: string): string {
  if (first >= 'A' && first <= 'H') return 'core';
  if (first >= 'I' && first <= 'P') return 'disclosed';
  if (first >= 'Q' && first <= 'X') return 'allowed';
  return 'publisher';
}

function segmentValues(segment: string): Uint8Array {
  const values = base64urlValues(segment);
  if (values === null) throw new Refused('its sections are not base64url');
  return values;
}

/**
 * Null when the sections (`sections[i]` the content of section id `ids[i]`, as the header declares
 * them) are within the bounds above, else why not, phrased to follow "is not a GPP string this
 * service accepts: ".
 */
export function gppSectionsBoundsError(ids: number[], sections: string[]): string | null {
  const expansion = new Expansion();
  try {
    ids.forEach((id, i) => {
      if (id !== TCF_EU_V2 && id !== TCF_CA_V1) return;
      for (const segment of sections[i].split('.')) {
        // The library skips empty segments.
        if (segment === '') continue;
        const kind = segmentKind(segment[0]);
        const values = segmentValues(segment);
        if (id === TCF_EU_V2) tcfEuSegment(values, kind, expansion);
        else tcfCaSegment(values, kind, expansion);
      }
    });
  } catch (error) {
    if (error instanceof Refused) return error.message;
    throw error;
  }
  return null;
}
