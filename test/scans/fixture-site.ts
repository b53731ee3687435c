import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A customer's web site for tracker-scan tests: two node:http servers on 127.0.0.1, the site and a
 * third-party tracker host (another port, which the scanner treats as another site for IP hosts).
 *
 * The default page (`/`) carries a fake consent banner with our SDK's DOM contract (buttons with
 * data-consent-action="reject-all" / "accept-all") and one tracker per label in TRACKERS, so a scan
 * can be checked against what each phase must see. `/?banner=none` is the same page with no banner
 * (a visitor region where none is shown). Pass `page` to serve your own HTML at `/` instead (for
 * example one with the real SDK snippet) and `routes` for more paths.
 */
export const TRACKERS = {
  /** 1. Set by /analytics.js, which only the "accept all" click loads: correctly blocked. */
  afterAcceptCookie: 'analytics_after_accept',
  /** 2. Set at load by an inline script the banner does not block. */
  unblockedInlineCookie: 'inline_unblocked',
  /** 3. Set by the server's own Set-Cookie header on the page, declared nowhere. */
  serverCookie: 'undeclared_server',
  /** 4. An image from the third-party host at load (path /pixel.gif); after accept, /collect.js too. */
  thirdPartyPixel: '/pixel.gif',
  thirdPartyScriptAfterAccept: '/collect.js',
  /** 5. Google Analytics' cookie set at load, for the known-cookie database. */
  googleAnalyticsCookie: '_ga',
  /** 6. Web storage keys set at load. */
  localStorageKey: 'ls_tracker',
  sessionStorageKey: 'ss_tracker',
  /** The banner's own first-party record of the choice, set by either click. */
  consentCookie: 'consent',
} as const;

/** Where the fake banner posts the choice, like the SDK's decision post a scan must block. */
export const FAKE_DECISION_PATH = '/v1/public/decisions';

export interface FixtureOrigins {
  /** http://127.0.0.1:PORT, the site. */
  origin: string;
  /** http://127.0.0.1:OTHER_PORT, the tracker host. */
  thirdPartyOrigin: string;
}

export type FixtureRoute = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  origins: FixtureOrigins,
) => void;

export interface FixtureSiteOptions {
  /** The HTML served at `/` in place of the fake banner page. */
  page?: (origins: FixtureOrigins) => string;
  /** More paths on the site (exact path, no query), checked before the built-in ones. */
  routes?: Record<string, FixtureRoute>;
}

export interface FixtureSite extends FixtureOrigins {
  /** Paths (with query) requested from the site and from the tracker host, in order. */
  siteHits: string[];
  thirdPartyHits: string[];
  close(): Promise<void>;
}

const ONE_DAY = 86_400;

function bannerPage({ thirdPartyOrigin }: FixtureOrigins, withBanner: boolean): string {
  const banner = withBanner
    ? `<div id="banner" hidden><p>We use cookies.</p>
<button type="button" data-consent-action="reject-all">Reject all</button>
<button type="button" data-consent-action="accept-all">Accept all</button></div>
<script>
  // Shown a moment after load, as the SDK does once its configuration arrives.
  setTimeout(() => { document.getElementById('banner').hidden = false; }, 200);
  document.getElementById('banner').addEventListener('click', (event) => {
    const action = event.target.getAttribute('data-consent-action');
    if (!action) return;
    const accepted = action === 'accept-all';
    document.cookie = '${TRACKERS.consentCookie}=' + (accepted ? 'accepted' : 'rejected') + '; path=/; max-age=${365 * ONE_DAY}';
    fetch('${FAKE_DECISION_PATH}', { method: 'POST', body: action }).catch(() => {});
    if (accepted) {
      for (const src of ['/analytics.js', '${thirdPartyOrigin}${TRACKERS.thirdPartyScriptAfterAccept}']) {
        const script = document.createElement('script');
        script.src = src;
        document.head.append(script);
      }
    }
    document.getElementById('banner').remove();
  });
</script>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fixture shop</title>
<script>
  document.cookie = '${TRACKERS.unblockedInlineCookie}=1; path=/; max-age=${30 * ONE_DAY}';
  document.cookie = '${TRACKERS.googleAnalyticsCookie}=GA1.1.1234567890.1700000000; path=/; max-age=${730 * ONE_DAY}';
  localStorage.setItem('${TRACKERS.localStorageKey}', '1');
  sessionStorage.setItem('${TRACKERS.sessionStorageKey}', '1');
</script></head>
<body><h1>Fixture shop</h1>
<img src="${thirdPartyOrigin}${TRACKERS.thirdPartyPixel}" alt="" width="1" height="1">
${banner}
</body></html>`;
}

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const siteHits: string[] = [];
  const thirdPartyHits: string[] = [];
  // Responses held open by /hang, ended on close so the servers can stop.
  const held = new Set<http.ServerResponse>();
  const origins: FixtureOrigins = { origin: '', thirdPartyOrigin: '' };

  const site = http.createServer((req, res) => {
    siteHits.push(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://fixture');
    const route = options.routes?.[url.pathname];
    if (route) return route(req, res, origins);
    if (url.pathname === '/') {
      const html = options.page
        ? options.page(origins)
        : bannerPage(origins, url.searchParams.get('banner') !== 'none');
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': `${TRACKERS.serverCookie}=1; Path=/; Max-Age=${ONE_DAY}`,
      });
      return res.end(html);
    }
    if (url.pathname === '/analytics.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(`document.cookie = '${TRACKERS.afterAcceptCookie}=1; path=/; max-age=${ONE_DAY}';`);
    }
    if (url.pathname === '/redirect') {
      // The redirect the SSRF guard must stop: /redirect?to=http://10.255.255.1/
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      return res.end();
    }
    if (url.pathname === '/hang') {
      // A page that never finishes loading: the request is accepted and never answered.
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    res.writeHead(url.pathname === FAKE_DECISION_PATH ? 204 : 404).end();
  });

  const tracker = http.createServer((req, res) => {
    thirdPartyHits.push(req.url ?? '/');
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    if (path === TRACKERS.thirdPartyPixel) {
      res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' });
      return res.end(PIXEL);
    }
    if (path === TRACKERS.thirdPartyScriptAfterAccept) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end('window.collected = true;');
    }
    res.writeHead(404).end();
  });

  origins.origin = await listen(site);
  origins.thirdPartyOrigin = await listen(tracker);
  return {
    ...origins,
    siteHits,
    thirdPartyHits,
    async close() {
      for (const res of held) res.destroy();
      await Promise.all(
        [site, tracker].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/**
 * Labelled trackers of sdkFixturePage (besides the fixture's own server cookie and pixel). The
 * channel must declare the first two, for its `analytics` purpose.
 */
export const SDK_PAGE_LABELS = {
  blocked: 'declared_blocked', // declared, behind data-consent-purpose: only after accept
  unblocked: 'declared_unblocked', // declared, set at load by an unblocked script: a violation
  firstParty: 'undeclared_first', // undeclared, unknown to the cookie database
  ga: '_ga', // undeclared, classified by the Open Cookie Database
};

/** A page with the channel's real SDK snippet and one tracker per SDK_PAGE_LABELS entry. */
export function sdkFixturePage(baseUrl: string, siteKey: string) {
  return ({ thirdPartyOrigin }: { thirdPartyOrigin: string }) => `<!doctype html>
<html lang="en"><head><title>Fixture shop</title>
<script src="${baseUrl}/v1/public/sites/${siteKey}/sdk.js" data-site-key="${siteKey}" async></script>
</head><body><h1>Fixture shop</h1>
<script type="text/plain" data-consent-purpose="analytics">document.cookie = '${SDK_PAGE_LABELS.blocked}=1; path=/; max-age=86400';</script>
<script>
  document.cookie = '${SDK_PAGE_LABELS.unblocked}=1; path=/; max-age=86400';
  document.cookie = '${SDK_PAGE_LABELS.firstParty}=1; path=/; max-age=86400';
  document.cookie = '${SDK_PAGE_LABELS.ga}=GA1.1.123.456; path=/; max-age=86400';
</script>
<img alt="" src="${thirdPartyOrigin}${TRACKERS.thirdPartyPixel}">
</body></html>`;
}
