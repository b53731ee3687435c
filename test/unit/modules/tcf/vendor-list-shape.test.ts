import { describe, expect, it } from 'vitest';
import {
  checkLanguageFile,
  checkVendorList,
} from '../../../../src/modules/tcf/vendor-list/vendor-list-shape.ts';
import { nestsDeeperThan } from '../../../../src/modules/tcf/vendor-list/vendor-list-source.ts';
import { buildLanguageFile, buildVendorList } from '../../../helpers/gvl.ts';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not the braces and brackets inside strings', () => {
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'{['.repeat(100)}"}`, 1)).toBe(false);
    // An escaped quote does not end the string.
    expect(nestsDeeperThan(`{"a":"\\"${'{'.repeat(100)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\\\",${'"b":{'.repeat(3)}1}}}}`, 3)).toBe(true);
  });

  it('scans a million levels without recursion', () => {
    expect(nestsDeeperThan('['.repeat(1_000_000) + ']'.repeat(1_000_000), 32)).toBe(true);
  });
});

describe('checkVendorList', () => {
  it('keeps a GVL v3 list as it is, and says about how large it is', () => {
    const list = { ...buildVendorList(), standardTexts: { features: { '1': { text: 'A standard text.' } } } };
    const checked = checkVendorList(JSON.parse(JSON.stringify(list)));
    expect(checked.body).toEqual(list);
    const chars = JSON.stringify(checked.body).length;
    expect(Math.abs(checked.size - chars) / chars).toBeLessThan(0.05);
  });

  it('names where a list is wrong', () => {
    const list = buildVendorList() as Record<string, any>;
    list.vendors['8'].urls = [{ privacy: 'https://x.example' }];
    expect(() => checkVendorList(list)).toThrow(
      'vendor-list.json: vendors[8].urls[0].langId is not a string',
    );
    const stacks = buildVendorList() as Record<string, any>;
    stacks.stacks['2'].purposes = [25];
    expect(() => checkVendorList(stacks)).toThrow(
      'vendor-list.json: stacks[2].purposes is not a list of ids (each from 1 to 24)',
    );
  });
});

describe('checkLanguageFile', () => {
  it('keeps a language file as it is, without keys the format does not have', () => {
    const file = buildLanguageFile('fr');
    const hostile = JSON.parse(
      JSON.stringify(file).replace('"purposes":{"1":{', '"purposes":{"1":{"__proto__":{"x":1},"extra":2,'),
    );
    expect(checkLanguageFile(hostile, 'purposes-fr.json')).toEqual(file);
  });
});

// store-independent: vendor list shape checks, pure functions
