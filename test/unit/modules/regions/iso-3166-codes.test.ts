import fs from 'node:fs';
import path from 'node:path';
import { iso31661 } from 'iso-3166/1.js';
import { iso31662 } from 'iso-3166/2.js';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generatedSource } from '../../../../src/modules/regions/iso-3166.generate.ts';
import { isCountry, isSubdivision } from '../../../../src/modules/regions/region-codes.ts';

/** The vendored code lists are the installed iso-3166 package's, and region-codes reads all of them. */
describe('vendored ISO 3166 codes', () => {
  it('match the installed iso-3166 package (else run iso-3166.generate.ts)', () => {
    const { version } = JSON.parse(
      fs.readFileSync(
        path.resolve(import.meta.dirname, '../../../../node_modules/iso-3166/package.json'),
        'utf8',
      ),
    );
    expect(fs.readFileSync(GENERATED_FILE, 'utf8')).toBe(generatedSource(version));
  });

  it('every assigned country and every subdivision is known, and nothing else of that shape', () => {
    expect(iso31661.every((entry) => isCountry(entry.alpha2))).toBe(true);
    expect(iso31662.every((entry) => isSubdivision(entry.code))).toBe(true);
    expect(iso31661).toHaveLength(249);
    expect(isCountry('XK')).toBe(true); // Kosovo: user-assigned, used by GeoIP and CDNs
    expect(isCountry('XX')).toBe(false);
    expect(isSubdivision('US-XX')).toBe(false);
  });
});

// store-independent: the ISO 3166 code table
