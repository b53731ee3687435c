import { describe, expect, it } from 'vitest';
import { cmpImportErrors, shownImports } from '../../../../src/modules/channels/cmp-imports.ts';
import { firstPartyPathErrors } from '../../../../src/modules/channels/first-party-settings.ts';
import {
  cookieDomainErrors,
  domainCoversOrigin,
  registrableDomain,
} from '../../../../src/modules/channels/origins.service.ts';
import {
  decodeDecisionCookie,
  deviceChoiceIsNewer,
  encodeDecisionCookie,
  readDecisionCookie,
} from '../../../../src/shared/decision-cookie.ts';

/** The rules of the first-party settings and the decision cookie's one encoding, as pure functions. */
describe('cookieDomain by the Public Suffix List', () => {
  it('refuses public suffixes (private section too), addresses and names without a registrable domain', () => {
    for (const domain of ['com', 'co.uk', 'github.io', 'appspot.com', 'localhost', '127.0.0.1']) {
      expect(cookieDomainErrors(domain, []), domain).toHaveLength(1);
    }
    for (const domain of ['example.com', 'example.co.uk', 'me.github.io', 'shop.example.com']) {
      expect(cookieDomainErrors(domain, []), domain).toEqual([]);
    }
  });

  it('covers an origin at or under it; a wildcard only from its base up', () => {
    expect(domainCoversOrigin('example.com', 'https://example.com')).toBe(true);
    expect(domainCoversOrigin('example.com', 'https://a.b.example.com:8443')).toBe(true);
    expect(domainCoversOrigin('example.com', 'https://*.example.com')).toBe(true);
    expect(domainCoversOrigin('shop.example.com', 'https://*.example.com')).toBe(false);
    expect(domainCoversOrigin('example.com', 'https://notexample.com')).toBe(false);
    expect(domainCoversOrigin('example.com', 'https://example.com.evil.io')).toBe(false);
    const [error] = cookieDomainErrors(
      'example.com',
      ['https://www.example.com', 'https://www.example.org'],
      '/origin',
    );
    expect(error.path).toBe('/origin');
    expect(error.message).toContain('https://www.example.org');
  });

  it('groups hosts by registrable domain', () => {
    expect(registrableDomain('www.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('*.blog.example.org')).toBe('example.org');
    expect(registrableDomain('me.github.io')).toBe('me.github.io');
    expect(registrableDomain('localhost')).toBe('localhost');
  });
});

describe('firstPartyPath beyond its pattern', () => {
  it('has no empty segment and no trailing slash', () => {
    expect(firstPartyPathErrors('/consent')).toEqual([]);
    expect(firstPartyPathErrors(null)).toEqual([]);
    expect(firstPartyPathErrors('/a//b')[0].message).toContain('"/a/b"');
    expect(firstPartyPathErrors('/consent/')[0].message).toContain('"/consent"');
  });
});

describe('imports', () => {
  const purposes = [
    { key: 'necessary', required: true, status: 'active' },
    { key: 'analytics', required: false, status: 'active' },
    { key: 'old', required: false, status: 'archived' },
  ];
  it('name their ids in each CMP’s shape and our active optional purposes', () => {
    expect(cmpImportErrors([{ from: 'onetrust', purposes: { C0002: 'analytics' } }], purposes)).toEqual([]);
    const errors = cmpImportErrors(
      [
        { from: 'onetrust', purposes: { C0002: 'old', 'C/1': 'analytics' } },
        { from: 'tcf', purposes: { '11': 'necessary' } },
        { from: 'tcf', purposes: { '3': 'analytics' } },
      ],
      purposes,
    );
    expect(errors.map((e) => e.path)).toEqual([
      '/imports/0/purposes/C0002',
      '/imports/0/purposes/C~11',
      '/imports/1/purposes/11',
      '/imports/2/from',
    ]);
  });

  it('the config carries only mappings to optional purposes it still has', () => {
    expect(
      shownImports(
        [
          { from: 'cookiebot', purposes: { statistics: 'analytics', marketing: 'gone' } },
          { from: 'tcf', purposes: { '1': 'gone' } },
        ],
        new Set(['analytics']),
      ),
    ).toEqual([{ from: 'cookiebot', purposes: { statistics: 'analytics' } }]);
  });
});

describe('the decision cookie’s value', () => {
  const value = { s: 'a'.repeat(32), d: { analytics: 'granted' as const }, v: 3, t: 1_767_225_600_000 };
  it('round-trips, and is made only of characters a cookie value may hold', () => {
    const encoded = encodeDecisionCookie(value);
    expect(encoded).toMatch(/^[A-Za-z0-9%_.!~*'()-]+$/);
    expect(decodeDecisionCookie(encoded)).toEqual(value);
    expect(readDecisionCookie(`a=1; cs_consent_site_test_x=${encoded}; b=2`, 'site_test_x')).toEqual(value);
  });

  it('reads anything else as absent, never throwing', () => {
    for (const raw of ['', '%', '%E0%A4%A', 'null', '[]', '{"s":1}', encodeURIComponent('{"s":"short"}')]) {
      expect(decodeDecisionCookie(raw), raw).toBeNull();
    }
  });

  it('at sign-in, only the device’s own newer choice holds against the account’s', () => {
    expect(deviceChoiceIsNewer(value, value.t - 1)).toBe(true);
    expect(deviceChoiceIsNewer(value, value.t)).toBe(false);
    expect(deviceChoiceIsNewer({ ...value, g: 1 }, value.t - 1)).toBe(false);
    expect(deviceChoiceIsNewer(null, 0)).toBe(false);
  });
});

// store-independent: PSL rules, import mappings and the cookie's encoding, pure functions
