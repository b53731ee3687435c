import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuardProxy } from '../../src/modules/scans/browser/guard-proxy.ts';
import {
  type PageScan,
  runBrowserScan,
  ScanFailure,
  type ScanOptions,
  type ScanPhase,
} from '../../src/modules/scans/browser/index.ts';
import { launchScanBrowser } from '../../src/modules/scans/browser/launch.ts';
import { sameSite } from '../../src/modules/scans/browser/observations.ts';
import { skipWith } from '../helpers/skip.ts';
import { browserSkipReason, CHROMIUM_PATH } from '../sdk/harness.ts';
import { expectBrowserGone } from './browser-processes.ts';
import { FAKE_DECISION_PATH, type FixtureSite, startFixtureSite, TRACKERS } from './fixture-site.ts';

const ALL: ScanPhase[] = ['before-consent', 'after-reject', 'after-accept'];

function phasesOf<T extends { phase: ScanPhase }>(items: T[], match: (item: T) => boolean): ScanPhase[] {
  return ALL.filter((phase) => items.some((item) => item.phase === phase && match(item)));
}

/** The rejection of `work`, which must reject. */
async function failureOf(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the scan was expected to fail');
}

describe.skipIf(skipWith(browserSkipReason))('tracker scan engine in Chromium', () => {
  let site: FixtureSite;
  let siteHost: string;
  let trackerHost: string;
  beforeAll(async () => {
    site = await startFixtureSite({
      routes: {
        // A page whose image is on an internal address: the guard must keep it from loading.
        '/internal-image': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<!doctype html><title>x</title><img src="http://10.255.255.1/pixel.gif" alt="">');
        },
      },
    });
    siteHost = new URL(site.origin).host;
    trackerHost = new URL(site.thirdPartyOrigin).host;
  });
  afterAll(() => site.close());

  let browserPid = 0;
  const options = (overrides: Partial<ScanOptions>): ScanOptions => ({
    urls: [],
    chromiumPath: CHROMIUM_PATH,
    allowAddress: (ip) => ip === '127.0.0.1',
    pageTimeoutMs: 15_000,
    scanTimeoutMs: 110_000,
    onBrowserStarted: (pid) => {
      browserPid = pid;
    },
    ...overrides,
  });

  it('records each labelled tracker in exactly the phases where the page sets it (3 pages)', async () => {
    const port = new URL(site.origin).port;
    const looked: string[] = [];
    const checked = new Set<string>();
    const started = Date.now();
    const pages = await runBrowserScan(
      options({
        urls: [`${site.origin}/`, `${site.origin}/?banner=none`, `http://shop.example:${port}/`],
        // The proxy, not Chromium, resolves names: shop.example exists only in this lookup.
        lookup: async (hostname) => {
          looked.push(hostname);
          if (hostname === 'shop.example') return [{ address: '127.0.0.1', family: 4 }];
          throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        },
        allowAddress: (ip) => {
          checked.add(ip);
          return ip === '127.0.0.1';
        },
        blockRequest: (url) => url.pathname.startsWith('/v1/public/'),
      }),
    );
    console.log(`3-URL scan took ${Date.now() - started} ms`);
    await expectBrowserGone(browserPid);
    expect(pages.map((page) => page.url)).toEqual([
      `${site.origin}/`,
      `${site.origin}/?banner=none`,
      `http://shop.example:${port}/`,
    ]);
    const [withBanner, noBanner, byName] = pages as [PageScan, PageScan, PageScan];

    const cookie = (page: PageScan, name: string) => phasesOf(page.cookies, (c) => c.name === name);
    expect(withBanner.bannerFound).toEqual({ reject: true, accept: true });
    expect(cookie(withBanner, TRACKERS.afterAcceptCookie)).toEqual(['after-accept']);
    expect(cookie(withBanner, TRACKERS.unblockedInlineCookie)).toEqual(ALL);
    expect(cookie(withBanner, TRACKERS.serverCookie)).toEqual(ALL);
    expect(cookie(withBanner, TRACKERS.googleAnalyticsCookie)).toEqual(ALL);
    expect(cookie(withBanner, TRACKERS.consentCookie)).toEqual(['after-reject', 'after-accept']);
    const ga = withBanner.cookies.find((c) => c.name === '_ga');
    expect(ga).toMatchObject({ domain: '127.0.0.1', path: '/', url: `${site.origin}/` });
    // Set for 730 days; Chromium caps a cookie's lifetime at 400.
    expect(ga?.expires).toBeGreaterThan(Date.now() / 1000 + 390 * 86_400);
    // Deduplicated per phase: one row per (name, domain, path) and phase.
    expect(withBanner.cookies.filter((c) => c.name === '_ga')).toHaveLength(3);

    const storage = (page: PageScan, kind: string, key: string) =>
      phasesOf(page.storage, (s) => s.kind === kind && s.key === key && s.origin === site.origin);
    expect(storage(withBanner, 'localStorage', TRACKERS.localStorageKey)).toEqual(ALL);
    expect(storage(withBanner, 'sessionStorage', TRACKERS.sessionStorageKey)).toEqual(ALL);

    const request = (page: PageScan, host: string, type: string, thirdParty: boolean) =>
      phasesOf(
        page.requests,
        (r) => r.host === host && r.resourceType === type && r.thirdParty === thirdParty,
      );
    expect(request(withBanner, trackerHost, 'image', true)).toEqual(ALL);
    expect(request(withBanner, trackerHost, 'script', true)).toEqual(['after-accept']);
    expect(request(withBanner, siteHost, 'document', false)).toEqual(ALL);
    expect(request(withBanner, siteHost, 'script', false)).toEqual(['after-accept']);
    // The banner's decision post was aborted by blockRequest: never sent, never recorded.
    expect(site.siteHits).not.toContain(FAKE_DECISION_PATH);
    expect(withBanner.requests.filter((r) => r.resourceType === 'fetch')).toEqual([]);

    // No banner shown: no click, and every phase still recorded.
    expect(noBanner.bannerFound).toEqual({ reject: false, accept: false });
    expect(cookie(noBanner, TRACKERS.unblockedInlineCookie)).toEqual(ALL);
    expect(cookie(noBanner, TRACKERS.consentCookie)).toEqual([]);
    expect(cookie(noBanner, TRACKERS.afterAcceptCookie)).toEqual([]);

    // A host name: resolved by the guard's lookup, cookies on that name, the IP host third-party.
    expect(looked).toContain('shop.example');
    expect(byName.bannerFound).toEqual({ reject: true, accept: true });
    expect(phasesOf(byName.cookies, (c) => c.name === '_ga' && c.domain === 'shop.example')).toEqual(ALL);
    expect(request(byName, `shop.example:${port}`, 'document', false)).toEqual(ALL);
    expect(request(byName, trackerHost, 'image', true)).toEqual(ALL);

    // Loopback went through the guard, not around it (Chromium's implicit bypass is removed).
    expect([...checked]).toEqual(['127.0.0.1']);
    for (const page of pages) expect(page.refusedHosts).toEqual([]);
  }, 120_000);

  it('sends loopback through the guard too: a site the policy refuses is never reached', async () => {
    const hitsBefore = site.siteHits.length;
    const error = await failureOf(
      runBrowserScan(options({ urls: [`${site.origin}/`], allowAddress: () => false })),
    );
    expect(error).toBeInstanceOf(ScanFailure);
    expect(error.message).toBe(
      `${site.origin}/ resolves to a non-public address; scans only reach public addresses`,
    );
    expect(site.siteHits.length).toBe(hitsBefore);
    await expectBrowserGone(browserPid);
  }, 120_000);

  it.each(['http://10.255.255.1/', 'https://10.255.255.1/'])(
    'fails a page that redirects to a non-public address (%s) and closes the browser',
    async (target) => {
      const url = `${site.origin}/redirect?to=${encodeURIComponent(target)}`;
      const error = await failureOf(runBrowserScan(options({ urls: [url] })));
      expect(error).toBeInstanceOf(ScanFailure);
      expect(error.message).toBe(
        `${url} redirected to ${target}, which resolves to a non-public address; scans only reach public addresses`,
      );
      await expectBrowserGone(browserPid);
    },
    120_000,
  );

  it('does not load a subresource on a non-public address, and names its host', async () => {
    const [page] = await runBrowserScan(options({ urls: [`${site.origin}/internal-image`] }));
    expect(page.refusedHosts).toEqual(['10.255.255.1']);
    expect(page.requests.some((r) => r.host === '10.255.255.1')).toBe(false);
    expect(phasesOf(page.requests, (r) => r.resourceType === 'document')).toEqual(ALL);
    expect(page.bannerFound).toEqual({ reject: false, accept: false });
  }, 120_000);

  it('fails a page that never finishes loading within the page timeout, and kills nothing else', async () => {
    let startedAt = 0;
    const error = await failureOf(
      runBrowserScan(
        options({
          urls: [`${site.origin}/hang`],
          // Short, so the test waits 2 s rather than a default's 15 (a whole number: the message says seconds).
          pageTimeoutMs: 2000,
          onBrowserStarted: (pid) => {
            browserPid = pid;
            startedAt = Date.now();
          },
        }),
      ),
    );
    const elapsed = Date.now() - startedAt;
    expect(error).toBeInstanceOf(ScanFailure);
    expect(error.message).toBe(`The page ${site.origin}/hang did not finish loading within 2 s`);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(2000 + 4000);
    await expectBrowserGone(browserPid);
  }, 120_000);

  it('fails a scan that outlives the scan timeout', async () => {
    const started = Date.now();
    const error = await failureOf(
      runBrowserScan(options({ urls: [`${site.origin}/hang`], pageTimeoutMs: 15_000, scanTimeoutMs: 2000 })),
    );
    expect(error).toBeInstanceOf(ScanFailure);
    expect(error.message).toBe('The scan did not finish within 2 s');
    expect(Date.now() - started).toBeLessThan(2000 + 4000);
    await expectBrowserGone(browserPid);
  }, 120_000);

  it('rejects promptly when the worker aborts mid-scan, and kills the browser', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const scan = runBrowserScan(
      options({
        urls: [`${site.origin}/hang`],
        signal: controller.signal,
        onBrowserStarted: (pid) => {
          browserPid = pid;
          setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, 1000);
        },
      }),
    );
    const error = await failureOf(scan);
    expect(error.name).toBe('AbortError');
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    await expectBrowserGone(browserPid);
  }, 120_000);

  it('kills a browser whose graceful close hangs', async () => {
    const proxy = await startGuardProxy({ allowAddress: () => false });
    const browser = await launchScanBrowser(CHROMIUM_PATH, proxy.url, 30_000);
    try {
      process.kill(browser.pid, 'SIGSTOP'); // a browser that no longer answers
      const started = Date.now();
      await browser.close(1000);
      expect(Date.now() - started).toBeLessThan(4000);
      await expectBrowserGone(browser.pid);
    } finally {
      await browser.kill();
      await proxy.close();
    }
  }, 120_000);
});

describe('tracker scan engine: refusals before any browser starts', () => {
  const base: ScanOptions = {
    urls: ['https://example.com/'],
    chromiumPath: '/nonexistent/chromium',
    allowAddress: () => true,
    pageTimeoutMs: 15_000,
    scanTimeoutMs: 60_000,
  };

  it('names the missing browser and how to install it', async () => {
    const error = await failureOf(runBrowserScan(base));
    expect(error).toBeInstanceOf(ScanFailure);
    expect(error.message).toBe(
      'No browser is installed for scans: SCANNER_CHROMIUM_PATH (/nonexistent/chromium) does not exist; install Chromium (apt-get install chromium) or set SCANNER_CHROMIUM_PATH',
    );
  });

  it('says when the path is not an executable, or not a browser', async () => {
    const plainFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'scan-')), 'chromium');
    await fs.writeFile(plainFile, '', { mode: 0o644 });
    const notExecutable = await failureOf(runBrowserScan({ ...base, chromiumPath: plainFile }));
    expect(notExecutable.message).toBe(
      `No browser is installed for scans: SCANNER_CHROMIUM_PATH (${plainFile}) is not executable; install Chromium (apt-get install chromium) or set SCANNER_CHROMIUM_PATH`,
    );
    await fs.rm(path.dirname(plainFile), { recursive: true });
    const notABrowser = await failureOf(runBrowserScan({ ...base, chromiumPath: '/bin/false' }));
    expect(notABrowser).toBeInstanceOf(ScanFailure);
    expect(notABrowser.message).toBe('The browser at /bin/false could not be started');
  }, 60_000);

  it.each(['ftp://example.com/', 'javascript:alert(1)', 'file:///etc/passwd', 'not a url'])(
    'refuses %s',
    async (url) => {
      const error = await failureOf(runBrowserScan({ ...base, chromiumPath: CHROMIUM_PATH, urls: [url] }));
      expect(error).toBeInstanceOf(ScanFailure);
      expect(error.message).toContain(url);
    },
  );
});

describe('first- and third-party requests', () => {
  it.each([
    ['https://www.shop.com/', 'https://cdn.shop.com/a.js', true],
    ['https://shop.com/', 'https://www.shop.com/a.js', true],
    ['https://shop.com/', 'https://shop.com:8443/a.js', true],
    ['https://app.shop.com/', 'https://cdn.shop.com/a.js', false], // no public suffix list: siblings differ
    ['https://shop.com/', 'https://tracker.example/p.gif', false],
    ['https://notshop.com/', 'https://shop.com/', false],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/x', true],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:9090/x', false], // for IPs the port is the site
    ['http://localhost:3000/', 'http://localhost:3001/x', false],
    ['http://[::1]:80/', 'http://[::1]/x', true],
  ])('page %s, request %s: same site %s', (page, request, same) => {
    expect(sameSite(new URL(page), new URL(request))).toBe(same);
  });
});

describe('guard proxy', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(() => site.close());

  /** Sends `head` to the proxy and resolves with what it answers first. */
  function talk(proxyUrl: string, head: string, then?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(proxyUrl).port), '127.0.0.1');
      let received = '';
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        received += chunk;
        if (then && received.includes('200 Connection Established')) {
          socket.write(then);
          then = undefined;
          received = '';
        } else if (received.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('end', () => resolve(received));
      socket.write(head);
    });
  }

  it('forwards plain http to the address it vetted, resolving the name once', async () => {
    const looked: string[] = [];
    const proxy = await startGuardProxy({
      allowAddress: (ip) => ip === '127.0.0.1',
      lookup: async (hostname) => {
        looked.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    try {
      const port = new URL(site.origin).port;
      const answer = await talk(
        proxy.url,
        `GET http://shop.example:${port}/ HTTP/1.1\r\nHost: shop.example:${port}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toContain(`${TRACKERS.serverCookie}=1`);
      expect(looked).toEqual(['shop.example']);
    } finally {
      await proxy.close();
    }
  });

  it('tunnels CONNECT to an allowed address and refuses one with any non-public address', async () => {
    const proxy = await startGuardProxy({
      allowAddress: (ip) => ip === '127.0.0.1',
      // One public-policy address and one refused: a mixed host is refused as a whole.
      lookup: async () => [
        { address: '127.0.0.1', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    try {
      const authority = new URL(site.origin).host;
      const tunnelled = await talk(
        proxy.url,
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`,
        `GET /analytics.js HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`,
      );
      expect(tunnelled).toMatch(/^HTTP\/1\.1 200 OK/);
      const refused = await talk(
        proxy.url,
        'CONNECT mixed.example:443 HTTP/1.1\r\nHost: mixed.example:443\r\n\r\n',
      );
      expect(refused).toMatch(/^HTTP\/1\.1 403/);
      expect(proxy.refusal('mixed.example')).toEqual({ hostname: 'mixed.example', reason: 'non-public' });
      const plain = await talk(proxy.url, 'GET http://10.1.2.3/ HTTP/1.1\r\nHost: 10.1.2.3\r\n\r\n');
      expect(plain).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await proxy.close();
    }
  });
});

// store-independent: the scan browser against a fixture site, no service (test/scans/scans.test.ts runs scans through the service on both stores)
