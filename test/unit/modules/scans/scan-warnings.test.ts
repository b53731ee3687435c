import { describe, expect, it } from 'vitest';
import type { PageScan } from '../../../../src/modules/scans/browser/index.ts';
import { scanWarnings } from '../../../../src/modules/scans/scan-warnings.ts';

const page = (url: string, over: Partial<PageScan> = {}): PageScan => ({
  url,
  bannerFound: { reject: true, accept: true },
  cookies: [],
  storage: [],
  requests: [],
  refusedHosts: [],
  truncated: false,
  ...over,
});

describe('scanWarnings', () => {
  it('says nothing when the banner loaded and was clicked on every page', () => {
    expect(scanWarnings([page('https://a.example/'), page('https://a.example/b')], true, 'opt-in')).toEqual(
      [],
    );
  });

  it('says once that the banner never loaded, not once per page', () => {
    const pages = [
      page('https://a.example/', { bannerFound: { reject: false, accept: false } }),
      page('https://a.example/b'),
    ];
    const warnings = scanWarnings(pages, false, 'opt-in');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/did not load on any page/);
  });

  it('names the page where an opt-in banner was not found, in either click phase', () => {
    const pages = [
      page('https://a.example/', { bannerFound: { reject: true, accept: false } }),
      page('https://a.example/b'),
    ];
    expect(scanWarnings(pages, true, 'opt-in')).toEqual([
      'No consent banner was found on https://a.example/: its reject-all and accept-all phases saw the page without a choice.',
    ]);
  });

  it('expects no buttons where the regime shows no blocking banner', () => {
    const none = page('https://a.example/', { bannerFound: { reject: false, accept: false } });
    expect(scanWarnings([none], true, 'opt-out')).toEqual([]);
    expect(scanWarnings([none], true, 'notice-only')).toEqual([]);
  });

  it('names refused hosts and a cut-off page', () => {
    const warnings = scanWarnings(
      [page('https://a.example/', { refusedHosts: ['intranet.example', '10.0.0.1'], truncated: true })],
      true,
      'opt-in',
    );
    expect(warnings[0]).toMatch(/asked for intranet\.example, 10\.0\.0\.1, which the address rules refused/);
    expect(warnings[1]).toMatch(/more than 2000 items/);
  });
});

// store-independent: scan warnings, pure functions
