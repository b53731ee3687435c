/**
 * The GPP decoders' circuit breakers, one per site (gpp.service.ts): a site whose strings stopped a
 * decoder child `failures` times within `windowMs` is open for `openMs`: its strings are answered
 * at once, without a decode, until then. Per site, not per organization or for everyone: the strings
 * that stop a child are the site's (anyone can post them to any site, so an open breaker costs that
 * one site's GPP decisions a while, never another's). Only sites with a recent failure are kept.
 */
export interface SiteBreakers {
  /** How long the site's breaker stays open, in ms; 0 when it is closed. */
  openFor(siteKey: string): number;
  /** A string of the site stopped a child; true when that opened its breaker. */
  failed(siteKey: string): boolean;
}

/** How many sites are remembered before the stale ones are swept (each failure costs a child). */
const MAX_REMEMBERED = 1000;

export function createSiteBreakers(options: {
  failures: number;
  windowMs: number;
  openMs: number;
  now: () => number;
}): SiteBreakers {
  const { failures, windowMs, openMs, now } = options;
  const sites = new Map<string, { failures: number[]; openUntil: number }>();
  return {
    openFor(siteKey) {
      const site = sites.get(siteKey);
      if (!site) return 0;
      const at = now();
      if (site.openUntil > at) return site.openUntil - at;
      if (site.failures.every((t) => at - t > windowMs)) sites.delete(siteKey);
      return 0;
    },
    failed(siteKey) {
      const at = now();
      // Sites whose failures are all past the window (and whose breaker is closed) are forgotten.
      if (sites.size >= MAX_REMEMBERED) {
        for (const [key, site] of sites) {
          if (site.openUntil <= at && site.failures.every((t) => at - t > windowMs)) sites.delete(key);
        }
      }
      const site = sites.get(siteKey) ?? { failures: [], openUntil: 0 };
      site.failures = [...site.failures.filter((t) => at - t <= windowMs), at];
      sites.set(siteKey, site);
      if (site.failures.length < failures) return false;
      site.openUntil = at + openMs;
      return true;
    },
  };
}
