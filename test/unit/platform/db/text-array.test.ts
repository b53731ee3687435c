import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textArrayLiteral } from '../../../../src/platform/db/text-array.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

describe('textArrayLiteral', () => {
  it('is the literal pg itself sends for a text array (quotes, backslashes, NULLs, any text)', () => {
    expect(textArrayLiteral(['a', null, 'say "hi"', 'C:\\dir\\', ''])).toBe(
      prepareValue(['a', null, 'say "hi"', 'C:\\dir\\', '']),
    );
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: 'binary' }), { nil: null })), (values) => {
        expect(textArrayLiteral(values)).toBe(prepareValue(values));
      }),
      { numRuns: 2000 },
    );
  });
});

// store-independent: the text-array literal against pg's own encoder, no database
