import { describe, expect, it } from 'vitest';
import { readCookiebot, readOneTrust, readTcf } from '../../../sdk/src/import/cmp-cookies.ts';
import { readImport } from '../../../sdk/src/import/read-import.ts';
import type { SiteConfig } from '../../../sdk/src/types.ts';
import { cookiebot, oneTrust, tcString } from '../../sdk/cmp-cookie-builders.ts';

/**
 * import.js's readers of other CMPs' cookies, pure: what each format gives, and that hostile or
 * huge values give null (the visitor is asked), never an exception.
 */
const NOW = Date.UTC(2026, 11, 1, 12);
const DAY = 86_400_000;

const config = (imports: SiteConfig['imports']): SiteConfig =>
  ({
    consentMaxAgeDays: 180,
    imports,
    purposes: [
      { key: 'necessary', required: true },
      { key: 'analytics', required: false },
      { key: 'marketing', required: false },
    ],
  }) as unknown as SiteConfig;

describe('the readers of other CMPs’ cookies', () => {
  it('OneTrust: groups and the datestamp as Date#toString writes it', () => {
    const at = new Date(NOW - 10 * DAY);
    expect(readOneTrust(oneTrust('C0001:1,C0002:0,C0004:1', at))).toEqual({
      categories: { C0001: true, C0002: false, C0004: true },
      recordedAt: Math.floor(at.getTime() / 1000) * 1000,
    });
  });

  it('Cookiebot: an explicit choice with a stamp and utc; implied or stampless ones are none', () => {
    const fields = {
      stamp: 'AbC123==',
      necessary: true,
      preferences: false,
      statistics: true,
      marketing: false,
    };
    const explicit = { ...fields, method: 'explicit', ver: 1, utc: NOW - DAY, region: 'de' };
    expect(readCookiebot(cookiebot(explicit))).toEqual({
      categories: { preferences: false, statistics: true, marketing: false },
      recordedAt: NOW - DAY,
    });
    expect(readCookiebot(cookiebot({ ...explicit, method: 'implied' }))).toBeNull();
    expect(readCookiebot(cookiebot({ ...explicit, stamp: '-1' }))).toBeNull();
    expect(readCookiebot(cookiebot({ ...explicit, utc: 0 }))).toBeNull();
  });

  it('TCF: purpose consents and LastUpdated of a string IAB’s library made', () => {
    const at = new Date(NOW - 30 * DAY);
    const read = readTcf(tcString([1, 3, 4], at));
    expect(read?.recordedAt).toBe(Math.floor(at.getTime() / 100) * 100);
    expect(
      Object.entries(read?.categories ?? {})
        .filter(([, on]) => on)
        .map(([id]) => id),
    ).toEqual(['1', '3', '4']);
  });

  it.each([
    ['empty', ''],
    ['not their format', 'hello world'],
    ['a broken percent escape', '%E0%A4%A'],
    [
      'many groups',
      `groups=${Array.from({ length: 5000 }, (_, i) => `C${String(i).padStart(4, '0')}:1`).join(',')}&datestamp=x`,
    ],
    ['an unreadable date', 'groups=C0001:1&datestamp=yesterday'],
    ['a wrong group', 'groups=C0001:1,<script>:1&datestamp=Tue Nov 04 2025 10:00:00 GMT+0100'],
    ['a TC string of version 1', 'BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA'],
    ['base64 that is not base64url', 'CPy+/////==='],
    ['a huge value', 'C'.repeat(100_000)],
  ])('hostile input (%s) is no choice, never an exception', (_, value) => {
    for (const read of [readOneTrust, readCookiebot, readTcf]) expect(read(value)).toBeNull();
  });
});

describe('readImport: a decision only when every optional purpose is mapped and the choice is young enough', () => {
  const at = new Date(NOW - 10 * DAY);
  const mapped = config([{ from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } }]);

  it('maps the categories, keeps the raw value and the time of the old choice (whole seconds, UTC)', () => {
    const value = oneTrust('C0001:1,C0002:1,C0004:0', at);
    expect(readImport(`a=1; OptanonConsent=${value}; b=2`, mapped, NOW)).toEqual({
      choice: { analytics: true, marketing: false },
      importedFrom: {
        cmp: 'onetrust',
        recordedAt: new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
        value,
      },
    });
  });

  it('asks when a purpose is unmapped, a mapped category is missing, the choice is too old, or the value too long', () => {
    const value = oneTrust('C0001:1,C0002:1,C0004:0', at);
    const partly = config([{ from: 'onetrust', purposes: { C0002: 'analytics' } }]);
    expect(readImport(`OptanonConsent=${value}`, partly, NOW)).toBeNull();
    expect(readImport(`OptanonConsent=${oneTrust('C0001:1,C0002:1', at)}`, mapped, NOW)).toBeNull();
    expect(readImport(`OptanonConsent=${value}`, mapped, at.getTime() + 180 * DAY)).toBeNull();
    expect(readImport(`OptanonConsent=${value}&x=${'y'.repeat(4096)}`, mapped, NOW)).toBeNull();
  });

  it('a purpose mapped from several categories is granted only when all of them were', () => {
    const both = config([
      { from: 'tcf', purposes: { '1': 'analytics', '3': 'marketing', '4': 'marketing' } },
    ]);
    const value = tcString([1, 3], at);
    expect(readImport(`euconsent-v2=${value}`, both, NOW)?.choice).toEqual({
      analytics: true,
      marketing: false,
    });
  });

  it('takes the first of the channel’s imports that holds a choice', () => {
    const two = config([
      { from: 'cookiebot', purposes: { statistics: 'analytics', marketing: 'marketing' } },
      { from: 'onetrust', purposes: { C0002: 'analytics', C0004: 'marketing' } },
    ]);
    const onlyOneTrust = `OptanonConsent=${oneTrust('C0002:0,C0004:1', at)}`;
    expect(readImport(onlyOneTrust, two, NOW)?.importedFrom.cmp).toBe('onetrust');
  });
});

// store-independent: pure functions of the SDK's import.js, no service
