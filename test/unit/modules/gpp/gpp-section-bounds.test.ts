import {
  CompressedBase64UrlEncoder,
  FibonacciIntegerEncoder,
  FibonacciIntegerRangeEncoder,
  FixedIntegerEncoder,
  FixedIntegerRangeEncoder,
  GppModel,
  TraditionalBase64UrlEncoder,
} from '@iabgpp/cmpapi';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gppBoundsError } from '../../../../src/modules/gpp/gpp-bounds.ts';
import { MAX_EXPANDED_IDS } from '../../../../src/modules/gpp/gpp-section-bounds.ts';
import { hostileTcfEuGpp, tcfEuGpp } from '../../../helpers/gpp.ts';

/**
 * The section bounds against the library itself: every string they let through makes
 * `@iabgpp/cmpapi` expand at most MAX_EXPANDED_IDS vendor ids (counted where it expands them: its
 * two range decoders, wrapped here), and strings the library's encoder makes are refused only when
 * their vendor fields really are that large.
 */
let expanded = 0;
const originals = { fixed: FixedIntegerRangeEncoder.decode, fibonacci: FibonacciIntegerRangeEncoder.decode };
beforeAll(() => {
  FixedIntegerRangeEncoder.decode = (bits: string) => {
    const ids = originals.fixed.call(FixedIntegerRangeEncoder, bits);
    expanded += ids.length;
    return ids;
  };
  FibonacciIntegerRangeEncoder.decode = (bits: string) => {
    const ids = originals.fibonacci.call(FibonacciIntegerRangeEncoder, bits);
    expanded += ids.length;
    return ids;
  };
});
afterAll(() => {
  FixedIntegerRangeEncoder.decode = originals.fixed;
  FibonacciIntegerRangeEncoder.decode = originals.fibonacci;
});

/**
 * The vendor ids the library expands decoding `value` fully (only called on strings the bounds
 * accept): what its range decoders return, less the header's section ids (one per section).
 */
function libraryExpansion(value: string): number {
  expanded = 0;
  try {
    new GppModel(value).toObject();
  } catch {
    // Refused by the library: what it expanded before counts all the same.
  }
  return expanded - (value.split('~').length - 1);
}

const int = (value: number, width: number) => FixedIntegerEncoder.encode(value, width);
const fib = (value: number) => FibonacciIntegerEncoder.encode(value);
const REASON = `its sections make the decoder expand more than ${MAX_EXPANDED_IDS} vendor ids`;

/** A tcfeuv2 core segment by hand: the fixed fields, then vendor consents as these fixed ranges. */
function tcfEuWithRanges(ranges: [number, number][], restrictions: [number, number][][] = []): string {
  const [header, section] = tcfEuGpp([1]).split('~');
  const base64 = TraditionalBase64UrlEncoder.getInstance();
  const fixed = base64.decode(section.split('.')[0]).slice(0, 213);
  const list = (r: [number, number][]) =>
    int(r.length, 12) +
    r.map(([a, b]) => (a === b ? `0${int(a, 16)}` : `1${int(a, 16)}${int(b, 16)}`)).join('');
  const restrictionBits = restrictions.map((r, i) => int((i % 10) + 1, 6) + int(1, 2) + list(r)).join('');
  const bits = `${fixed}${int(65535, 16)}1${list(ranges)}${int(0, 16)}0${int(restrictions.length, 12)}${restrictionBits}`;
  return `${header}~${base64.encode(bits)}`;
}

/** A tcfcav1 core segment by hand: its fixed fields, then express consents as Fibonacci ranges (offset, length). */
function tcfCaWithFibonacciRanges(entries: [number, number][]): string {
  const model = new GppModel();
  model.setFieldValue('tcfcav1', 'VendorExpressConsent', [1]);
  const [header, section] = model.encode().split('~');
  const base64 = CompressedBase64UrlEncoder.getInstance();
  const fixed = base64.decode(section.split('.')[0]).slice(0, 199);
  const list =
    int(entries.length, 12) + entries.map(([offset, length]) => `1${fib(offset)}${fib(length)}`).join('');
  const empty = `${int(0, 16)}0`;
  return `${header}~${base64.encode(`${fixed}${int(65535, 16)}1${list}${empty}${int(0, 12)}`)}`;
}

describe('gppSectionsBoundsError through gppBoundsError', () => {
  it('the 603-character string that once stalled the shared decoder, and the strings around the bound', () => {
    expect(gppBoundsError(hostileTcfEuGpp())).toBe(REASON);
    expect(gppBoundsError(hostileTcfEuGpp({ ranges: 20, last: 1000 }))).toBeNull();
    expect(gppBoundsError(hostileTcfEuGpp({ ranges: 20, last: 1001 }))).toBe(REASON);
    expect(libraryExpansion(hostileTcfEuGpp({ ranges: 20, last: 1000 }))).toBe(20_000);
    // Ranges whose last id is below the first expand nothing (the library walks none).
    expect(gppBoundsError(tcfEuWithRanges(Array.from({ length: 500 }, () => [60000, 2])))).toBeNull();
  });

  it('publisher restrictions count too', () => {
    const restriction: [number, number][] = [[1, 5000]];
    expect(gppBoundsError(tcfEuWithRanges([[1, 5000]], [restriction, restriction, restriction]))).toBeNull();
    expect(gppBoundsError(tcfEuWithRanges([[1, 5001]], [restriction, restriction, restriction]))).toBe(
      REASON,
    );
  });

  it('tcfcav1: a Fibonacci id above 65535, and lengths counted as the library reads them (up to three times)', () => {
    expect(gppBoundsError(tcfCaWithFibonacciRanges([[1, 65535]]))).toBe(
      'its sections name a vendor id above 65535',
    );
    const small = tcfCaWithFibonacciRanges([[1, 999]]);
    expect(gppBoundsError(small)).toBeNull();
    expect(libraryExpansion(small)).toBeLessThanOrEqual(3 * 1000);
    expect(gppBoundsError(tcfCaWithFibonacciRanges([[1, 6000]]))).toBeNull();
    // Twice the Fibonacci reading (6,001 + 4,001 ids) is past the bound, whatever the fixed reading adds.
    expect(
      gppBoundsError(
        tcfCaWithFibonacciRanges([
          [1, 6000],
          [1, 4000],
        ]),
      ),
    ).toBe(REASON);
  });

  it('a section that is not base64url is refused', () => {
    expect(gppBoundsError('DBABMA~C*AA')).toBe('its sections are not base64url');
  });

  it('any hand-built tcfeuv2 of overlapping ranges: refused exactly when the library would expand more', () => {
    const ranges = fc.array(
      fc
        .tuple(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 0, max: 3000 }))
        .map(([first, length]): [number, number] => [first, Math.min(65535, first + length)]),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(ranges, fc.array(ranges, { maxLength: 3 }), (consents, restrictions) => {
        const value = tcfEuWithRanges(consents, restrictions);
        const total = [consents, ...restrictions].flat().reduce((sum, [a, b]) => sum + (b - a + 1), 0);
        if (total > MAX_EXPANDED_IDS) expect(gppBoundsError(value)).toBe(REASON);
        else {
          expect(gppBoundsError(value)).toBeNull();
          expect(libraryExpansion(value)).toBe(total);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("strings of the library's own encoder: accepted when their vendor fields' largest ids add up to the bound", () => {
    const vendors = fc
      .array(fc.tuple(fc.integer({ min: 1, max: 8000 }), fc.integer({ min: 0, max: 2000 })), { maxLength: 4 })
      .map((runs) => [...new Set(runs.flatMap(([a, n]) => Array.from({ length: n + 1 }, (_, i) => a + i)))]);
    const fields = ['VendorConsents', 'VendorLegitimateInterests', 'VendorsDisclosed', 'VendorsAllowed'];
    fc.assert(
      fc.property(fc.array(vendors, { minLength: 4, maxLength: 4 }), (lists) => {
        const model = new GppModel();
        lists.forEach((ids, i) => {
          model.setFieldValue('tcfeuv2', fields[i], ids);
        });
        const value = model.encode();
        const largest = lists.reduce((sum, ids) => sum + (ids.length ? Math.max(...ids) : 0), 0);
        const error = gppBoundsError(value);
        if (error === null) expect(libraryExpansion(value)).toBeLessThanOrEqual(MAX_EXPANDED_IDS);
        if (largest <= MAX_EXPANDED_IDS) expect(error).toBeNull();
      }),
      { numRuns: 40 },
    );
  });
});

// store-independent: GPP section bounds, pure functions
