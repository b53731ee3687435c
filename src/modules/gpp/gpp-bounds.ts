import { Bits, BitsEnded, base64urlValues } from '../../shared/base64url-bits.ts';
import { gppSectionsBoundsError } from './gpp-section-bounds.ts';

/**
 * Bounds a GPP string before `@iabgpp/cmpapi` sees it. Why: a decoder's worst case is the
 * attacker's best case. The GPP header lists its section ids as a Fibonacci range (a 12-bit count
 * of entries; per entry a 1-bit "is a range" flag, the Fibonacci-coded offset from the previous id,
 * and for a range the Fibonacci-coded length), and the library expands every range one id at a
 * time into an array before it looks at anything else. A 15-character string whose header declares
 * the range 1..169 million blocked the event loop for 18 s and killed the process (a 13-character
 * one took 14.6 s and 2 GB to be refused). Real strings name a handful of sections with ids < 30.
 *
 * So this reads the header and refuses, without expanding anything, a string that is too long, has
 * more sections than MAX_SECTIONS, has no GPP header (type 3, version 1), declares a range longer
 * than MAX_SECTIONS ids or more than MAX_SECTIONS ids in all, names an id above MAX_SECTION_ID, or
 * whose number of `~`-separated sections differs from the number of ids its header declares. Any
 * Fibonacci code word is read only as far as its value can stay within the bounds, so this costs
 * O(header). Then the sections' own vendor ranges are bounded the same way (gpp-section-bounds.ts).
 * Encoding: IAB Global Privacy Platform, Consent String Specification, "Header Encoding" and the
 * "Range (Fibonacci)" data type.
 */

/** The longest GPP string accepted (the request schema's bound too). */
export const MAX_GPP_LENGTH = 4096;
/** The most sections (ids the header declares, and `~`-separated sections) a string may have. */
export const MAX_SECTIONS = 64;
/** The highest section id accepted: ids assigned so far run from 2 to 27; this leaves room. */
export const MAX_SECTION_ID = 255;

const HEADER_TYPE = 3;
const HEADER_VERSION = 1;

/** Fibonacci weights of a code word's bits (1, 2, 3, 5, 8, …) up to the first above MAX_SECTION_ID. */
const WEIGHTS: number[] = [1, 2];
while (WEIGHTS[WEIGHTS.length - 1] <= MAX_SECTION_ID) {
  WEIGHTS.push(WEIGHTS[WEIGHTS.length - 1] + WEIGHTS[WEIGHTS.length - 2]);
}

class Refused extends Error {}

/** The header's bits (the shared base64url reader), with the Fibonacci code words GPP adds. */
class HeaderBits extends Bits {
  /**
   * A Fibonacci code word: bit i weighs WEIGHTS[i], the word ends at the first two 1s in a row
   * (the second is the terminator, it weighs nothing). Null when its value would exceed `max`:
   * the word's last weighted bit is a 1, so once the next bit's weight is above `max` the value is.
   */
  fibonacci(max: number): number | null {
    let value = 0;
    let previous = 0;
    for (let i = 0; ; i++) {
      const bit = this.bit();
      if (bit === 1 && previous === 1) return value;
      if (i >= WEIGHTS.length || WEIGHTS[i] > max) return null;
      value += bit * WEIGHTS[i];
      if (value > max) return null;
      previous = bit;
    }
  }
}

/** The section ids the header declares, in order, or Refused (nothing is expanded past the bounds). */
function readSectionIds(header: string): number[] {
  if (header.length === 0) throw new Refused('it has no GPP header');
  const values = base64urlValues(header);
  if (!values) throw new Refused('its header is not base64url');
  try {
    return sectionIdsOf(new HeaderBits(values));
  } catch (error) {
    if (error instanceof BitsEnded) throw new Refused('its header ends inside its list of section ids');
    throw error;
  }
}

function sectionIdsOf(bits: HeaderBits): number[] {
  if (bits.int(6) !== HEADER_TYPE || bits.int(6) !== HEADER_VERSION) {
    throw new Refused('it has no GPP header (type 3, version 1)');
  }
  const entries = bits.int(12);
  if (entries > MAX_SECTIONS) {
    throw new Refused(`its header declares ${entries} entries of section ids, more than ${MAX_SECTIONS}`);
  }
  const ids: number[] = [];
  let last = 0;
  for (let i = 0; i < entries; i++) {
    const isRange = bits.bit() === 1;
    const offset = bits.fibonacci(MAX_SECTION_ID - last);
    if (offset === null) throw new Refused(`its header declares a section id above ${MAX_SECTION_ID}`);
    const start = last + offset;
    let end = start;
    if (isRange) {
      const length = bits.fibonacci(MAX_SECTIONS - 1);
      if (length === null) {
        throw new Refused(`its header declares a range of more than ${MAX_SECTIONS} section ids`);
      }
      end = start + length;
      if (end > MAX_SECTION_ID) throw new Refused(`its header declares a section id above ${MAX_SECTION_ID}`);
    }
    if (ids.length + (end - start + 1) > MAX_SECTIONS) {
      throw new Refused(`its header declares more than ${MAX_SECTIONS} section ids`);
    }
    for (let id = start; id <= end; id++) ids.push(id);
    last = end;
  }
  return ids;
}

/** The section ids a GPP header (the part before the first `~`) declares, in order, or why not. */
export function declaredSectionIds(header: string): number[] | string {
  try {
    return readSectionIds(header);
  } catch (error) {
    if (error instanceof Refused) return error.message;
    throw error;
  }
}

/**
 * Null when the string is within the bounds above (it may still not decode: the library decides
 * that), else why it is refused, phrased to follow "is not a GPP string this service accepts: ".
 */
export function gppBoundsError(value: string): string | null {
  if (value.length > MAX_GPP_LENGTH) return `it is longer than ${MAX_GPP_LENGTH} characters`;
  let separators = 0;
  for (let i = value.indexOf('~'); i !== -1; i = value.indexOf('~', i + 1)) {
    if (++separators > MAX_SECTIONS) return `it has more than ${MAX_SECTIONS} sections`;
  }
  const headerEnd = value.indexOf('~');
  const ids = declaredSectionIds(headerEnd === -1 ? value : value.slice(0, headerEnd));
  if (typeof ids === 'string') return ids;
  if (ids.length !== separators) {
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    return `its header declares ${plural(ids.length, 'section id')} but it has ${plural(separators, 'section')}`;
  }
  // The sections' own vendor ranges (gpp-section-bounds.ts).
  return gppSectionsBoundsError(ids, value.split('~').slice(1));
}
