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
  /** Hostnames the page asked for that the guard refused (non-public or unresolvable), all phases; the first 20. */
  refusedHosts: string[];
  /** Observations dropped past the per-phase cap (a hostile page could otherwise set millions). */
  truncated: boolean;
}

/** Per phase and kind; far above any real page, low enough that one scan's findings stay small. */
export const MAX_OBSERVATIONS_PER_PHASE = 2000;

/**
 * Longest cookie name, storage key or host a scan keeps, in characters. A page may set a key of
 * megabytes; 2000 of them would make a scan of gigabytes.
 */
export const MAX_NAME_LENGTH = 256;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A name as the scan records it: at most MAX_NAME_LENGTH characters; a longer one is cut and ends
 * with how long it was (`…(1048576 characters)`). `length` is the whole name's, when `name` is
 * already a cut (read in the page, which sends no more). A lone UTF-16 surrogate, which a JSON
 * column refuses, becomes U+FFFD.
 */
export function capName(name: string, length = name.length): string {
  if (length <= MAX_NAME_LENGTH) return name.replace(LONE_SURROGATE, '\uFFFD');
  const marker = `…(${length} characters)`;
  let head = name.slice(0, MAX_NAME_LENGTH - marker.length);
  // Not half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return head.replace(LONE_SURROGATE, '\uFFFD') + marker;
}

/** Longer than any DNS name (253): nothing can be loaded from such a host. */
const MAX_HOSTNAME_LENGTH = 253;

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
  /** The hostname of each entry of `requests`, as the guard proxy names it. */
  private readonly hostnames = new Map<string, string>();

  constructor(
    readonly phase: ScanPhase,
    readonly url: string,
  ) {
    this.pageUrl = new URL(url);
  }

  addCookie(cookie: { name: string; domain: string; path: string; expires: number }) {
    const expires = cookie.expires > 0 ? Math.floor(cookie.expires) : null;
    const [name, domain, path] = [capName(cookie.name), capName(cookie.domain), capName(cookie.path)];
    this.put(this.cookies, [name, domain, path], {
      name,
      domain,
      path,
      expires,
      phase: this.phase,
      url: this.url,
    });
  }

  /** `length`: the key's whole length, when `key` is a cut of it (see capName). */
  addStorage(kind: ObservedStorage['kind'], origin: string, key: string, length = key.length) {
    const name = capName(key, length);
    this.put(this.storage, [kind, origin, name], {
      kind,
      key: name,
      origin,
      phase: this.phase,
      url: this.url,
    });
  }

  addRequest(requestUrl: URL, resourceType: string) {
    const host = capName(requestUrl.host);
    const key = this.put(this.requests, [host, resourceType], {
      host,
      resourceType,
      thirdParty: !sameSite(this.pageUrl, requestUrl),
      phase: this.phase,
      url: this.url,
    });
    if (key) this.hostnames.set(key, capName(requestUrl.hostname));
  }

  /**
   * Drops the requests to hostnames the guard refused (the page asked, but nothing was loaded),
   * and to hostnames too long to resolve, and returns those hostnames.
   */
  dropRequestsTo(refused: (hostname: string) => boolean): string[] {
    const dropped = new Set<string>();
    for (const [key, hostname] of this.hostnames) {
      if (hostname.length <= MAX_HOSTNAME_LENGTH && !refused(hostname)) continue;
      this.requests.delete(key);
      this.hostnames.delete(key);
      dropped.add(hostname);
    }
    return [...dropped];
  }

  /** Adds `value` under `parts` unless there or past the cap; returns its key when added. */
  private put<T>(map: Map<string, T>, parts: string[], value: T): string | undefined {
    const key = JSON.stringify(parts);
    if (map.has(key)) return;
    if (map.size >= MAX_OBSERVATIONS_PER_PHASE) {
      this.truncated = true;
      return;
    }
    map.set(key, value);
    return key;
  }
}
