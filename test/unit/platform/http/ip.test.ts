import { describe, expect, it } from 'vitest';
import { ipPrefix, rateLimitClient } from '../../../../src/platform/http/ip.ts';

describe('ipPrefix', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:0DB8:0001::', '2001:db8:1::/48'],
    ['::1', '0:0:0::/48'],
    ['1:2::3:4:5:1.2.3.4', '1:2:0::/48'],
    ['not-an-ip', null],
    [undefined, null],
  ])('%s → %s', (input, expected) => {
    expect(ipPrefix(input)).toBe(expected);
  });
});

describe('rateLimitClient', () => {
  it.each([
    ['203.0.113.77', '203.0.113.77'],
    ['::ffff:198.51.100.9', '198.51.100.9'],
    ['::FFFF:c633:6409', '198.51.100.9'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd:12::/64'],
    ['2001:0DB8:ABCD:0012:ffff:ffff:ffff:ffff', '2001:db8:abcd:12::/64'],
    ['2001:db8:abcd:12::1%eth0', '2001:db8:abcd:12::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['1:2::3:4:5:1.2.3.4', '1:2:0:3::/64'],
    ['64:ff9b::198.51.100.9', '64:ff9b:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['not:an:ip', 'not:an:ip'],
    ['unknown', 'unknown'],
    [undefined, undefined],
  ])('%s → %s', (input, expected) => {
    expect(rateLimitClient(input)).toBe(expected);
  });
});

// store-independent: IP parsing, pure functions
