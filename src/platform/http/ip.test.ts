import { describe, expect, it } from 'vitest';
import { ipPrefix } from './ip.ts';

describe('ipPrefix', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:0DB8:0001::', '2001:db8:1::/48'],
    ['::1', '0:0:0::/48'],
    ['not-an-ip', null],
    [undefined, null],
  ])('%s → %s', (input, expected) => {
    expect(ipPrefix(input)).toBe(expected);
  });
});
