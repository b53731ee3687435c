import { describe, expect, it } from 'vitest';
import { normalizeOrigin } from '../../../../src/modules/channels/origin.ts';
import { originMatches } from '../../../../src/modules/channels/origins.service.ts';

type Env = 'test' | 'live';

// [input, environment, expected normalized origin or null for invalid_origin]
const cases: Array<[string, Env, string | null]> = [
  ['https://example.com', 'live', 'https://example.com'],
  ['HTTPS://Example.COM', 'live', 'https://example.com'],
  ['https://example.com:443', 'live', 'https://example.com'],
  ['http://localhost:80', 'live', 'http://localhost'],
  ['https://example.com:8443', 'live', 'https://example.com:8443'],
  ['https://example.com/', 'live', 'https://example.com'],
  ['  https://example.com  ', 'live', null],
  [' https://example.com', 'live', null],
  ['https://example.com ', 'live', null],
  ['\thttps://example.com', 'live', null],
  ['https://example.com\n', 'live', null],
  ['https://exa\tmple.com', 'live', null],
  ['https://exa\nmple.com', 'live', null],
  ['https://example.com\u00a0', 'live', null],
  ['https://bücher.example', 'live', 'https://xn--bcher-kva.example'],
  ['https://*.example.com', 'live', 'https://*.example.com'],
  ['https://*.Bücher.de:8443', 'live', 'https://*.xn--bcher-kva.de:8443'],
  ['http://localhost:3000', 'live', 'http://localhost:3000'],
  ['http://127.0.0.1:8080', 'live', 'http://127.0.0.1:8080'],
  ['http://shop.example.com', 'test', 'http://shop.example.com'],
  ['http://shop.example.com', 'live', null],
  ['https://[::1]:8443', 'live', 'https://[::1]:8443'],
  ['https://1.2.3.4', 'live', 'https://1.2.3.4'],
  ['https://example.com/path', 'live', null],
  ['https://example.com/.', 'live', null],
  ['https://example.com//', 'live', null],
  ['https://example.com?', 'live', null],
  ['https://example.com?x=1', 'live', null],
  ['https://example.com#top', 'live', null],
  ['https://example.com\\', 'live', null],
  ['https://user:pass@example.com', 'live', null],
  ['https://@example.com', 'live', null],
  ['ftp://example.com', 'live', null],
  ['javascript:alert(1)', 'live', null],
  ['example.com', 'live', null],
  ['//example.com', 'live', null],
  ['https://', 'live', null],
  ['https://example.com:99999', 'live', null],
  ['https://exa mple.com', 'live', null],
  ['https://a..example.com', 'live', null],
  ['https://*.*.example.com', 'live', null],
  ['https://a.*.example.com', 'live', null],
  ['https://*example.com', 'live', null],
  ['https://*.com', 'live', null],
  ['https://*.1.2.3.4', 'live', null],
  ['https://*', 'live', null],
];

describe('normalizeOrigin', () => {
  it.each(cases)('%s (%s channel) → %s', (input, environment, expected) => {
    const result = normalizeOrigin(input, { environment });
    if (expected === null) {
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
    } else {
      expect(result).toEqual({ ok: true, origin: expected });
    }
  });

  it('is idempotent on its own output', () => {
    for (const [, environment, expected] of cases) {
      if (expected === null) continue;
      expect(normalizeOrigin(expected, { environment })).toEqual({ ok: true, origin: expected });
    }
  });
});

describe('originMatches', () => {
  const matches: Array<[string, string, boolean]> = [
    ['https://example.com', 'https://example.com', true],
    ['https://example.com', 'https://EXAMPLE.com:443', true],
    ['https://example.com', 'http://example.com', false],
    ['https://example.com', 'https://example.com:8443', false],
    ['https://example.com', 'https://a.example.com', false],
    ['https://*.example.com', 'https://a.example.com', true],
    ['https://*.example.com', 'https://example.com', false],
    ['https://*.example.com', 'https://a.b.example.com', false],
    ['https://*.example.com', 'http://a.example.com', false],
    ['https://*.example.com', 'https://a.example.com:8443', false],
    ['https://*.example.com:8443', 'https://a.example.com:8443', true],
    ['https://*.example.com', 'https://evilexample.com', false],
    ['https://*.example.com', 'https://a.example.com.evil.org', false],
    ['https://example.com', 'null', false],
    ['https://example.com', 'not a url', false],
    // An Origin header is exactly scheme://host[:port], as browsers send it: anything more is foreign.
    ['https://example.com', 'https://example.com/', false],
    ['https://example.com', 'https://example.com/path', false],
    ['https://example.com', 'https://example.com?', false],
    ['https://example.com', 'https://example.com#x', false],
    ['https://example.com', 'https://user:pw@example.com', false],
    ['https://example.com', 'https://@example.com', false],
    ['https://example.com', ' https://example.com', false],
    ['https://example.com', 'https://example.com ', false],
    ['https://example.com', '\thttps://example.com', false],
    ['https://example.com', 'https://exa\tmple.com', false],
    ['https://example.com', 'https://example.com\\', false],
    ['https://*.example.com', 'https://a.example.com/x', false],
    ['https://*.example.com', 'https://u@a.example.com', false],
    ['https://*.example.com', ' https://a.example.com', false],
  ];
  it.each(matches)('%s allows %s: %s', (allowed, request, expected) => {
    expect(originMatches(allowed, request)).toBe(expected);
  });
});

// store-independent: origin parsing, a pure function
