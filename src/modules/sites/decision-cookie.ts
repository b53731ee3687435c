import {
  decisionCookieName,
  encodeDecisionCookie,
  type StoredDecision,
} from '../../shared/decision-cookie.ts';
import { domainCovers, originHost } from '../channels/origins.service.ts';
import { domainOfOrigin } from './sibling-domains.ts';
import type { Site } from './sites.service.ts';

export type { StoredDecision } from '../../shared/decision-cookie.ts';

/**
 * The decision cookie as the service sets it (docs/guides/keep-the-choice.md): on an answer that
 * came through the channel's first-party path only, since a cookie from the service's own address
 * would be a third party's, which browsers drop or cap, and which no page of the site could read.
 *
 * What the request says of where it came from, as the route sees it: the Origin header, the host
 * it was sent to (`Host`, or `X-Forwarded-Host` when TRUST_PROXY trusts the proxy that set it),
 * the scheme (`X-Forwarded-Proto` under the same trust) and the browser's Sec-Fetch-Site.
 */
export interface RequestPlace {
  origin: string | undefined;
  host: string;
  protocol: string;
  secFetchSite: string | undefined;
}

/** Where a cookie set on this answer lands: whether it must be Secure, and its Domain (null: host-only). */
export interface CookieTarget {
  secure: boolean;
  domain: string | null;
}

/**
 * A response carrying a visitor's Set-Cookie is theirs alone: no shared cache (the site's CDN in
 * front of its first-party path) may keep it and hand it to another visitor.
 */
export const COOKIE_CACHE_CONTROL = 'private, no-store';

const DAY_S = 86_400;
const DAY_MS = DAY_S * 1000;

/** A Host header's name without its port, lower case (`[::1]:3000` gives `[::1]`). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** Whether a registered origin's host (`*.example.com` for any one label) names `host`. */
function hostMatches(registered: string, host: string): boolean {
  if (!registered.startsWith('*.')) return registered === host;
  const suffix = registered.slice(1);
  const label = host.slice(0, -suffix.length);
  return host.endsWith(suffix) && label.length > 0 && !label.includes('.');
}

/**
 * Whether the request came through the site's first-party path, and so may be answered with the
 * decision cookie; null when it did not (the service never sets a cookie on a cross-site answer).
 *
 * - The channel has a firstPartyPath: without one the SDK writes the cookie itself.
 * - A browser saying `Sec-Fetch-Site: cross-site` is believed.
 * - With an Origin (every POST): the host the request was sent to is on the same site (the same
 *   registrable domain, by the Public Suffix List) as the page. A page calling the service at its
 *   own address has the service's host there, another site's.
 * - Without one (a same-origin GET of the config or the SDK, which browsers send without Origin):
 *   the host is one of the channel's registered origins' hosts.
 *
 * Secure follows the page's scheme (the Origin's, else the forwarded one or a registered origin's);
 * the Domain is the channel's cookieDomain when the host is under it.
 */
export function cookieTarget(site: Site, place: RequestPlace): CookieTarget | null {
  const { firstPartyPath, cookieDomain } = site.channel;
  if (firstPartyPath === null || place.secFetchSite === 'cross-site') return null;
  const host = hostName(place.host);
  if (host === '') return null;
  let secure: boolean;
  if (place.origin !== undefined) {
    let origin: URL;
    try {
      origin = new URL(place.origin);
    } catch {
      return null;
    }
    if (domainOfOrigin(origin.origin) !== domainOfOrigin(`${origin.protocol}//${host}`)) return null;
    secure = origin.protocol === 'https:';
  } else {
    const matching = site.origins.filter((registered) => hostMatches(originHost(registered), host));
    if (matching.length === 0) return null;
    secure = place.protocol === 'https' || matching.every((registered) => registered.startsWith('https:'));
  }
  return { secure, domain: cookieDomain !== null && domainCovers(cookieDomain, host) ? cookieDomain : null };
}

/** The Set-Cookie header of a decision: lasting the channel's consentMaxAgeDays. */
export function decisionSetCookie(site: Site, target: CookieTarget, value: StoredDecision): string {
  const maxAge = site.config.consentMaxAgeDays * DAY_S;
  const parts = [
    `${decisionCookieName(site.channel.siteKey)}=${encodeDecisionCookie(value)}`,
    `Max-Age=${maxAge}`,
    'Path=/',
    'SameSite=Lax',
  ];
  if (target.secure) parts.push('Secure');
  if (target.domain !== null) parts.push(`Domain=${target.domain}`);
  return parts.join('; ');
}

const DECISION = /^(granted|denied)$/;
const PURPOSE_KEY = /^[a-z][a-z0-9_]{0,39}$/;
const MAX_DECISIONS = 200;
const MAX_SUBJECT_ID = 128;

/**
 * The cookie's decision as the service will set it again, or null when it is no valid decision
 * of this channel now: a visitor id, decisions of purpose keys (at most 200), a configVersion the
 * channel has had, and a time not more than a day ahead and not older than the longer of
 * consentMaxAgeDays and rejectCooldownDays (a refusal holds for the cooldown). Only the members the
 * SDK writes are kept, each checked, so a refresh never echoes what a visitor's browser made up.
 */
export function validStoredDecision(
  site: Site,
  stored: StoredDecision | null,
  now: Date,
): StoredDecision | null {
  if (!stored || typeof stored.s !== 'string' || stored.s.length > MAX_SUBJECT_ID) return null;
  const { d, v, t, g } = stored;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return null;
  const entries = Object.entries(d);
  if (entries.length > MAX_DECISIONS) return null;
  if (!entries.every(([key, value]) => PURPOSE_KEY.test(key) && DECISION.test(String(value)))) return null;
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > site.channel.configVersion) return null;
  if (typeof t !== 'number' || !Number.isFinite(t)) return null;
  const { consentMaxAgeDays, rejectCooldownDays } = site.config;
  const lifetime = Math.max(consentMaxAgeDays, rejectCooldownDays) * DAY_MS;
  const age = now.getTime() - t;
  if (age > lifetime || age < -DAY_MS) return null;
  return { s: stored.s, d: Object.fromEntries(entries), v, t, ...(g === 1 && { g: 1 as const }) };
}
