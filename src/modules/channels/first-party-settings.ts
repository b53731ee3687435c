import { getDomain, parse } from 'tldts';
import type { FieldError } from '../../platform/http/errors.ts';

/**
 * The rules of a channel's `firstPartyPath` and `cookieDomain` (docs/guides/keep-the-choice.md), and
 * the Public Suffix List answers the public site endpoints ask (which registrable domain a host is
 * on). The list is tldts's, private section included: browsers refuse a cookie for `github.io` as
 * they do for `co.uk`, so the service must too.
 */
const PSL = { allowPrivateDomains: true } as const;

/** The path's own rule beyond its pattern: no empty segment, no trailing slash. */
export function firstPartyPathErrors(path: string | null | undefined): FieldError[] {
  if (path === null || path === undefined) return [];
  if (path.includes('//') || path.endsWith('/')) {
    return [
      {
        path: '/firstPartyPath',
        message: `has an empty segment or a trailing slash; write it as "${path.replace(/\/+/g, '/').replace(/\/$/, '')}"`,
      },
    ];
  }
  return [];
}

/** The host of a normalized origin (`https://*.example.com` gives `*.example.com`), without port. */
export function originHost(origin: string): string {
  const rest = origin.slice(origin.indexOf('//') + 2);
  if (rest.startsWith('[')) return rest.slice(0, rest.indexOf(']') + 1);
  const colon = rest.lastIndexOf(':');
  return colon === -1 ? rest : rest.slice(0, colon);
}

/** Whether a cookie with `Domain=domain` reaches `host` (the host itself, or any name under it). */
export function domainCovers(domain: string, host: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Whether a registered origin (a wildcard included) lies under `domain`: `https://*.example.com`
 * is covered by `example.com`, not by `shop.example.com` (the wildcard stands for any label).
 */
export function domainCoversOrigin(domain: string, origin: string): boolean {
  const host = originHost(origin);
  return domainCovers(domain, host.startsWith('*.') ? host.slice(2) : host);
}

/**
 * The registrable domain of a host by the Public Suffix List (`www.example.co.uk` gives
 * `example.co.uk`); a host that has none (an IP address, `localhost`, a public suffix itself) is its
 * own group.
 */
export function registrableDomain(host: string): string {
  const bare = host.startsWith('*.') ? host.slice(2) : host;
  return getDomain(bare, PSL) ?? bare;
}

/**
 * What is wrong with a cookieDomain for a channel whose active origins are `origins`: a public
 * suffix (or an IP address, or a name without a registrable domain such as `localhost`), or an
 * origin it does not cover. `path` is where the errors point (`/cookieDomain` on a channel change,
 * `/origin` when an origin is added).
 */
export function cookieDomainErrors(
  domain: string | null,
  origins: readonly string[],
  path = '/cookieDomain',
): FieldError[] {
  if (domain === null) return [];
  const parsed = parse(domain, PSL);
  if (parsed.isIp)
    return [{ path, message: `${domain} is an IP address; a cookie Domain must be a domain name` }];
  if (parsed.domain === null) {
    return [
      {
        path,
        message: `${domain} is a public suffix (Public Suffix List), or has no registrable domain: browsers refuse a cookie for it; use your own domain, e.g. example.${domain}`,
      },
    ];
  }
  const uncovered = origins.filter((origin) => !domainCoversOrigin(domain, origin));
  if (uncovered.length === 0) return [];
  const shown = uncovered.slice(0, 5).join(', ');
  return [
    {
      path,
      message: `${domain} does not cover ${uncovered.length === 1 ? 'the origin' : 'the origins'} ${shown}${uncovered.length > 5 ? ', …' : ''}: the cookie Domain must cover every registered origin of the channel (set cookieDomain to null, or archive the origin)`,
    },
  ];
}
