import { GppModel, HeaderV1, Sections } from '@iabgpp/cmpapi';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  declaredSectionIds,
  gppBoundsError,
  MAX_SECTION_ID,
  MAX_SECTIONS,
} from '../../../../src/modules/gpp/gpp-bounds.ts';

/** A GPP header for these section ids, by the IAB library's own encoder. */
function header(ids: number[]): string {
  const h = new HeaderV1();
  h.setFieldValue('SectionIds', [...ids]);
  return h.encode();
}

/** A whole GPP string by the library's encoder: each section given as [name, field, value]. */
function encoded(fields: [string, string, unknown][]): string {
  const model = new GppModel();
  for (const [section, field, value] of fields) model.setFieldValue(section, field, value);
  return model.encode();
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('gppBoundsError: real strings pass', () => {
  const real: Record<string, string> = {
    usnat: encoded([
      ['usnat', 'SaleOptOutNotice', 1],
      ['usnat', 'SaleOptOut', 2],
    ]),
    uspv1: encoded([
      ['uspv1', 'Notice', 'Y'],
      ['uspv1', 'OptOutSale', 'N'],
    ]),
    tcfeuv2: encoded([
      ['tcfeuv2', 'CmpId', 300],
      ['tcfeuv2', 'PurposeConsents', [true, true, false, true]],
      ['tcfeuv2', 'VendorConsents', [1, 2, 3, 755, 800, ...range(1000, 1200)]],
    ]),
    'usnat, uspv1 and tcfeuv2': encoded([
      ['tcfeuv2', 'VendorConsents', [1, 2, 3, 755]],
      ['uspv1', 'Notice', 'Y'],
      ['usnat', 'SaleOptOut', 1],
    ]),
    // The usnat string of the US opt-out tests, as a browser SDK sent it.
    'usnat as sent': 'DBABLA~BVQqAAAAAgA.QA',
    // No section at all: what the CMP API holds before any choice.
    empty: 'DBAA',
  };

  for (const [name, value] of Object.entries(real)) {
    it(`${name}: within the bounds, and the header reads as the library reads it`, () => {
      expect(gppBoundsError(value)).toBeNull();
      const ids = declaredSectionIds(value.split('~')[0]);
      expect(ids).toEqual(new GppModel(value).getHeader().SectionIds ?? []);
      expect(new GppModel(value).toObject()).toBeTypeOf('object');
    });
  }

  it('a string with every section the library knows (ids 2 and 5..27: a range in the header)', () => {
    const model = new GppModel();
    for (const name of Sections.SECTION_ORDER) {
      const set = (field: string, value: unknown) => {
        try {
          model.setFieldValue(name, field, value);
          return true;
        } catch {
          return false;
        }
      };
      expect(set('SaleOptOut', 1) || set('Notice', 'Y') || set('CmpId', 1)).toBe(true);
    }
    const value = model.encode();
    expect(gppBoundsError(value)).toBeNull();
    expect(declaredSectionIds(value.split('~')[0])).toEqual([2, ...range(5, 27)]);
  });

  it("the specification's header examples", () => {
    expect(declaredSectionIds('DBABM')).toEqual([2]);
    expect(declaredSectionIds('DBACNY')).toEqual([2, 6]);
    expect(declaredSectionIds('DBABjw')).toEqual([5, 6]);
  });

  it('any set of at most 64 ids up to 255 reads back exactly as encoded', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: MAX_SECTION_ID }), { maxLength: MAX_SECTIONS }),
        (ids) => {
          expect(declaredSectionIds(header(ids))).toEqual([...ids].sort((a, b) => a - b));
        },
      ),
    );
  });
});

describe('gppBoundsError: refused before any decoding', () => {
  it('the header ranges that once blocked the event loop (15 and 13 characters), at once', () => {
    for (const value of ['DBAB9JJSKJVBg~A', 'DBAB5CqChUr~A']) {
      const started = performance.now();
      expect(gppBoundsError(value)).toBe('its header declares a range of more than 64 section ids');
      expect(performance.now() - started).toBeLessThan(50);
    }
  });

  it('a range of 65 ids; 65 single ids; two ranges of more than 64 ids in all', () => {
    expect(declaredSectionIds(header(range(1, 65)))).toBe(
      'its header declares a range of more than 64 section ids',
    );
    expect(declaredSectionIds(header(range(1, 64)))).toEqual(range(1, 64));
    const odd = range(0, 64).map((i) => 2 * i + 1);
    expect(declaredSectionIds(header(odd))).toBe(
      'its header declares 65 entries of section ids, more than 64',
    );
    expect(declaredSectionIds(header([...range(1, 40), ...range(50, 80)]))).toBe(
      'its header declares more than 64 section ids',
    );
  });

  it('a section id above 255', () => {
    expect(declaredSectionIds(header([256]))).toBe('its header declares a section id above 255');
    expect(declaredSectionIds(header([7, 300]))).toBe('its header declares a section id above 255');
    expect(declaredSectionIds(header([250, 251, 252, 253, 254, 255, 256]))).toBe(
      'its header declares a section id above 255',
    );
    expect(declaredSectionIds(header([255]))).toEqual([255]);
  });

  it('a header declaring more entries than it holds, or 1023 of them', () => {
    expect(gppBoundsError('DBAB')).toBe('its header ends inside its list of section ids');
    expect(gppBoundsError('DBP_')).toBe('its header declares 1023 entries of section ids, more than 64');
  });

  it('a number of sections other than the header declares', () => {
    const usnat = 'DBABLA~BVQqAAAAAgA.QA';
    expect(gppBoundsError(`${usnat}~x`)).toBe('its header declares 1 section id but it has 2 sections');
    expect(gppBoundsError(`${header([2, 7])}~x`)).toBe(
      'its header declares 2 section ids but it has 1 section',
    );
    expect(gppBoundsError('DBAA~x')).toBe('its header declares 0 section ids but it has 1 section');
  });

  it('more than 64 sections, before the header is read', () => {
    expect(gppBoundsError(`${header(range(1, 64))}${'~x'.repeat(64)}`)).toBeNull();
    expect(gppBoundsError(`${header(range(1, 64))}${'~x'.repeat(65)}`)).toBe('it has more than 64 sections');
    expect(gppBoundsError(`!${'~'.repeat(65)}`)).toBe('it has more than 64 sections');
  });

  it('no GPP header: garbage, a bare TC string, an empty header, a header that is not base64url', () => {
    expect(gppBoundsError('garbage')).toBe('it has no GPP header (type 3, version 1)');
    expect(gppBoundsError('CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA')).toBe(
      'it has no GPP header (type 3, version 1)',
    );
    expect(gppBoundsError('DCABLA~BVQqAAAAAgA.QA')).toBe('it has no GPP header (type 3, version 1)');
    expect(gppBoundsError('~x')).toBe('it has no GPP header');
    expect(gppBoundsError('DB.B~x')).toBe('its header is not base64url');
  });

  it('more than 4096 characters', () => {
    expect(gppBoundsError(`DBABLA~${'A'.repeat(4096)}`)).toBe('it is longer than 4096 characters');
  });
});

// store-independent: GPP string bounds, pure functions
