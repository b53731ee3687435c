import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  COOKIE_DATABASE_COLUMNS,
  COOKIE_DATABASE_CSV,
  classifyCookie,
  classifyHost,
  domainsOfField,
  parseCookieDatabase,
} from '../../../../src/modules/scans/cookie-database.ts';
import { isNecessaryCategory } from '../../../../src/shared/scans-matching.ts';

const HEADER = 'ID,Platform,Category,Cookie / Data Key name,Domain,Description,Wildcard match';

describe('the vendored Open Cookie Database', () => {
  it('has the header columns the loader reads', () => {
    const [header]: string[][] = parse(readFileSync(COOKIE_DATABASE_CSV), { bom: true, to_line: 1 });
    expect(header).toEqual(expect.arrayContaining(Object.values(COOKIE_DATABASE_COLUMNS)));
  });

  it('loads every row', () => {
    const { size } = parseCookieDatabase(readFileSync(COOKIE_DATABASE_CSV));
    expect(size.rows).toBeGreaterThan(2000);
    expect(size.prefixes).toBeGreaterThan(100);
    expect(size.domains).toBeGreaterThan(100);
  });
});

describe('classifyCookie', () => {
  it('classifies exact names as the CSV lists them', () => {
    expect(classifyCookie('_ga')).toEqual({ category: 'Analytics', vendor: 'Google Analytics' });
    expect(classifyCookie('_gid')).toEqual({ category: 'Analytics', vendor: 'Google Analytics' });
    expect(classifyCookie('_fbp')).toEqual({ category: 'Marketing', vendor: 'Facebook' });
    expect(classifyCookie('CookieConsent')).toEqual({ category: 'Functional', vendor: 'Cookiebot' });
  });

  it('matches wildcard entries as prefixes', () => {
    expect(classifyCookie('_ga_ABC123')).toEqual({ category: 'Analytics', vendor: 'Google Analytics' });
    expect(classifyCookie('_hjSessionUser_123456')).toMatchObject({ vendor: 'Hotjar' });
  });

  it('prefers the longest matching wildcard prefix', () => {
    // amplitude_id (Trustpilot, Marketing) and amplitude_id_ (Amplitude, Analytics) are both prefixes.
    expect(classifyCookie('amplitude_idX')).toEqual({ category: 'Marketing', vendor: 'Trustpilot' });
    expect(classifyCookie('amplitude_id_e3b0c4')).toEqual({ category: 'Analytics', vendor: 'Amplitude' });
    expect(classifyCookie('_gac_gb_UA-1')).toMatchObject({ vendor: 'Google Ads' });
    expect(classifyCookie('_gac_UA-1')).toMatchObject({ vendor: 'Google Analytics' });
  });

  it('returns null for an unknown name, and is case-sensitive like cookie names', () => {
    expect(classifyCookie('no_such_cookie_xyz')).toBeNull();
    expect(classifyCookie('')).toBeNull();
    expect(classifyCookie('_GA')).toBeNull();
  });

  it('tries an exact name before any prefix, and the longest prefix whatever the CSV order', () => {
    const db = parseCookieDatabase(
      [
        HEADER,
        '1,Short,Marketing,ab,,,1',
        '2,Long,Analytics,abc_,,,1',
        '3,Exact,Functional,abc_exact,,,0',
        '4,Second,Marketing,abc_exact,,,0',
      ].join('\n'),
    );
    expect(db.classifyCookie('abc_1')).toEqual({ category: 'Analytics', vendor: 'Long' });
    expect(db.classifyCookie('abX')).toEqual({ category: 'Marketing', vendor: 'Short' });
    expect(db.classifyCookie('ab')).toEqual({ category: 'Marketing', vendor: 'Short' });
    expect(db.classifyCookie('abc_exact')).toEqual({ category: 'Functional', vendor: 'Exact' });
    expect(db.classifyCookie('a')).toBeNull();
  });

  it('refuses a CSV without a column it needs', () => {
    expect(() => parseCookieDatabase('ID,Platform,Category,Domain\n1,X,Marketing,x.com')).toThrow(
      /Cookie \/ Data Key name.*Wildcard match/,
    );
  });
});

describe('classifyHost', () => {
  it('matches a listed domain and its subdomains', () => {
    expect(classifyHost('google-analytics.com')).toEqual({
      category: 'Analytics',
      vendor: 'Google Analytics',
    });
    expect(classifyHost('www.google-analytics.com')).toEqual({
      category: 'Analytics',
      vendor: 'Google Analytics',
    });
    expect(classifyHost('WWW.Facebook.com.')).toEqual({ category: 'Marketing', vendor: 'Facebook' });
    expect(classifyHost('ib.adnxs.com')).toMatchObject({ category: 'Marketing', vendor: 'Xandr' });
  });

  it('prefers the most specific listed domain', () => {
    expect(classifyHost('accounts.google.com')).toEqual({ category: 'Functional', vendor: 'Google' });
    expect(classifyHost('www.google.com')).toMatchObject({ category: 'Marketing' });
  });

  it('returns null for unlisted hosts, bare suffixes, addresses and names that are not domains', () => {
    expect(classifyHost('example.com')).toBeNull();
    expect(classifyHost('com')).toBeNull();
    expect(classifyHost('127.0.0.1')).toBeNull();
    expect(classifyHost('localhost')).toBeNull();
    expect(classifyHost('')).toBeNull();
  });

  it('reads free-text domain fields, skipping what is not a domain', () => {
    expect(domainsOfField('.bing.com (3rd party) or .microsoft.com (3rd party)')).toEqual([
      'bing.com',
      'microsoft.com',
    ]);
    expect(domainsOfField('google-analytics.com (3rd party) or ')).toEqual(['google-analytics.com']);
    expect(domainsOfField('.commander1.com\u200B')).toEqual(['commander1.com']);
    expect(domainsOfField('Inspectlet.com (3rd party)')).toEqual(['inspectlet.com']);
    expect(domainsOfField('ads-[account].adhese.com')).toEqual([]);
    expect(domainsOfField('ut')).toEqual([]);
    expect(domainsOfField('')).toEqual([]);
  });

  it('classes a domain with mixed entries by those needing consent', () => {
    const db = parseCookieDatabase(
      [
        HEADER,
        '1,Vendor,Functional,a,mixed.example,,0',
        '2,Vendor,Functional,b,.mixed.example,,0',
        '3,Vendor Ads,Marketing,c,mixed.example (3rd party),,0',
        '4,Safe,Security,d,safe.example,,0',
      ].join('\n'),
    );
    expect(db.classifyHost('cdn.mixed.example')).toEqual({ category: 'Marketing', vendor: 'Vendor Ads' });
    expect(db.classifyHost('safe.example')).toEqual({ category: 'Security', vendor: 'Safe' });
  });
});

describe('isNecessaryCategory', () => {
  it('is true only for the strictly necessary categories', () => {
    for (const category of ['Functional', 'Security', 'Necessary', ' functional ']) {
      expect(isNecessaryCategory(category)).toBe(true);
    }
    for (const category of ['Analytics', 'Marketing', 'Personalization', 'Preferences', '']) {
      expect(isNecessaryCategory(category)).toBe(false);
    }
  });
});

// store-independent: the cookie database file
