import { describe, expect, it } from 'vitest';
import { originListed } from '../../../sdk/src/page-origin.ts';
import { allowedOrigin } from '../../../src/modules/sites/cors.ts';
import { pageOrigins } from '../../../src/modules/sites/page-origins.ts';
import type { Site } from '../../../src/modules/sites/sites.service.ts';

/**
 * One rule in two places: the SDK runs on a page exactly when the service would accept that page's
 * public POSTs. The SDK matches `location.origin` against the config's `origins`
 * (sdk/src/page-origin.ts); the service matches the Origin header against the channel's origins and,
 * on test channels, the local pages (cors.ts, page-origins.ts). For every page origin a browser can
 * send here, both must agree, on both kinds of channel.
 */
const REGISTERED = [
  'https://shop.example.com',
  'https://*.example.org',
  'https://*.example.net:8443',
  'http://localhost:3000',
  'http://127.0.0.1',
  'http://staging.example.com',
];

/** Pages as browsers serialize their origin: lower case, no default port, punycode hosts. */
const PAGES = [
  'https://shop.example.com',
  'http://shop.example.com',
  'https://shop.example.com:8443',
  'https://www.shop.example.com',
  'https://example.com',
  'https://shopxexample.com',
  'https://blog.example.org',
  'https://a.b.example.org',
  'https://example.org',
  'https://blog.example.org:8443',
  'https://api.example.net:8443',
  'https://api.example.net',
  'http://localhost:3000',
  'http://localhost:3001',
  'http://localhost',
  'https://localhost:3000',
  'http://127.0.0.1',
  'http://127.0.0.1:5173',
  'http://127.0.0.2:5173',
  'http://[::1]:3000',
  'http://localhost.example.org',
  'http://staging.example.com',
  'https://staging.example.com',
  'https://xn--bcher-kva.example.org',
  'null',
];

function site(environment: 'test' | 'live'): Site {
  return { channel: { environment, platform: 'web' }, origins: REGISTERED } as unknown as Site;
}

describe("the SDK's page check agrees with the service's Origin check", () => {
  for (const environment of ['test', 'live'] as const) {
    it(`on a ${environment} channel, for every page origin`, () => {
      const s = site(environment);
      const disagreements = PAGES.filter(
        (page) => originListed(pageOrigins(s), page) !== (allowedOrigin(s, page) !== null),
      );
      expect(disagreements).toEqual([]);
    });
  }

  it('accepts what it should: a sample of both answers on each channel', () => {
    const listed = (environment: 'test' | 'live', page: string) =>
      originListed(pageOrigins(site(environment)), page);
    expect(listed('live', 'https://blog.example.org')).toBe(true);
    expect(listed('live', 'https://a.b.example.org')).toBe(false);
    expect(listed('live', 'http://localhost:3000')).toBe(true);
    expect(listed('live', 'http://localhost:3001')).toBe(false);
    expect(listed('test', 'http://localhost:3001')).toBe(true);
    expect(listed('test', 'http://localhost')).toBe(true);
    expect(listed('test', 'https://localhost:3000')).toBe(false);
    expect(listed('test', 'http://127.0.0.2:5173')).toBe(false);
    expect(originListed(undefined, 'https://shop.example.com')).toBe(false);
  });
});

// store-independent: the SDK's page-origin logic in Node, no service
