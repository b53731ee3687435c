import net from 'node:net';

/** The three fresh browser profiles each page is loaded in. */
export type ScanPhase = 'before-consent' | 'after-reject' | 'after-accept';
export const SCAN_PHASES: readonly ScanPhase[] = ['before-consent', 'after-reject', 'after-accept'];

export interface ObservedCookie {
  name: string;
  domain: string;
  path: string;
  /** Unix seconds; null for a session cookie. */
  expires: number | null;
  phase: ScanPhase;
  /** The scanned page (not the URL that set the cookie, which the browser does not tell). */
  url: string;
}

export interface ObservedStorage {
  kind: 'localStorage' | 'sessionStorage';
  key: string;
  /** The origin of the frame whose storage holds the key (an iframe's own origin included). */
  origin: string;
  phase: ScanPhase;
  url: string;
}

export interface ObservedRequest {
  /** `hostname[:port]` as in a URL's host (the port only when it is not the scheme's default). */
  host: string;
  /** Playwright's resource type: document, script, image, xhr, fetch, stylesheet, … */
  resourceType: string;
  thirdParty: boolean;
  phase: ScanPhase;
  url: string;
}

export interface PageScan {
  url: string;
  /** Whether the button was found and clicked in the after-reject / after-accept phase. */
  bannerFound: { reject: boolean; accept: boolean };
  cookies: ObservedCookie[];
  storage: ObservedStorage[];
  requests: ObservedRequest[];
  /** Hostnames the page asked for that the guard refused (non-public or unresolvable), all phases. */
  refusedHosts: string[];
  /** Observations dropped past the per-phase cap (a hostile page could otherwise set millions). */
  truncated: boolean;
}

/** Per phase and kind; far above any real page, low enough that one scan's findings stay small. */
export const MAX_OBSERVATIONS_PER_PHASE = 2000;

const isLocalName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

/**
 * What "the same site" means for a first/third-party call. Without the Public Suffix List (we ship
 * no copy) we cannot compute registrable domains, so for names a request is first-party when its
 * hostname is the page's hostname or a subdomain of it, with a leading `www.` of the page ignored
 * (page www.shop.com: cdn.shop.com is first-party; page shop.com: www.shop.com too). A sibling on
 * another subdomain (page app.shop.com, request cdn.shop.com) counts as third-party.
 * For IP addresses and localhost, where a test fixture's "other site" is only another port, the
 * identity is host:port.
 */
export function sameSite(pageUrl: URL, requestUrl: URL): boolean {
  const page = pageUrl.hostname.toLowerCase().replace(/\.$/, '');
  const request = requestUrl.hostname.toLowerCase().replace(/\.$/, '');
  const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare(page)) || isLocalName(page) || net.isIP(bare(request)) || isLocalName(request)) {
    return page === request && effectivePort(pageUrl) === effectivePort(requestUrl);
  }
  const base = page.startsWith('www.') ? page.slice(4) : page;
  return request === page || request === base || request.endsWith(`.${base}`);
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** One phase's findings, deduplicated as they arrive. */
export class PhaseObservations {
  readonly cookies = new Map<string, ObservedCookie>();
  readonly storage = new Map<string, ObservedStorage>();
  readonly requests = new Map<string, ObservedRequest>();
  truncated = false;
  private readonly pageUrl: URL;

  constructor(
    readonly phase: ScanPhase,
    readonly url: string,
  ) {
    this.pageUrl = new URL(url);
  }

  addCookie(cookie: { name: string; domain: string; path: string; expires: number }) {
    const expires = cookie.expires > 0 ? Math.floor(cookie.expires) : null;
    this.put(this.cookies, [cookie.name, cookie.domain, cookie.path], {
      name: cookie.name,
      domain: cookie.domain,
      path: cookie.path,
      expires,
      phase: this.phase,
      url: this.url,
    });
  }

  addStorage(kind: ObservedStorage['kind'], origin: string, key: string) {
    this.put(this.storage, [kind, origin, key], { kind, key, origin, phase: this.phase, url: this.url });
  }

  addRequest(requestUrl: URL, resourceType: string) {
    this.put(this.requests, [requestUrl.host, resourceType], {
      host: requestUrl.host,
      resourceType,
      thirdParty: !sameSite(this.pageUrl, requestUrl),
      phase: this.phase,
      url: this.url,
    });
  }

  /**
   * Drops the requests to hostnames the guard refused (the page asked, but nothing was loaded)
   * and returns those hostnames.
   */
  dropRequestsTo(refused: (hostname: string) => boolean): string[] {
    const dropped = new Set<string>();
    for (const [key, request] of this.requests) {
      const hostname = new URL(`http://${request.host}`).hostname;
      if (!refused(hostname)) continue;
      this.requests.delete(key);
      dropped.add(hostname);
    }
    return [...dropped];
  }

  private put<T>(map: Map<string, T>, parts: string[], value: T) {
    const key = JSON.stringify(parts);
    if (map.has(key)) return;
    if (map.size >= MAX_OBSERVATIONS_PER_PHASE) {
      this.truncated = true;
      return;
    }
    map.set(key, value);
  }
}
