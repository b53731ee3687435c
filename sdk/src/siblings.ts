import { originListed } from './page-origin.ts';
import type { SiteConfig } from './types.ts';

/**
 * The channel's registrable domains other than the one of the page at `origin` (crossDomain: the
 * config's siblingDomains, which the service groups by the Public Suffix List), each with its
 * origins; [] when the choice does not travel. The page's own domain is the group that lists it.
 */
export function otherDomains(config: SiteConfig, origin: string) {
  const groups = config.siblingDomains || [];
  const own = groups.find((group) => originListed(group.origins, origin));
  return own ? groups.filter((group) => group !== own) : [];
}

/** The hosts the first layer names for those domains (`https://*.example.org` as `example.org`). */
export const siblingHosts = (config: SiteConfig, origin: string): string[] =>
  otherDomains(config, origin).flatMap((group) =>
    group.origins.map((o) => o.replace(/^[a-z]+:\/\/(\*\.)?/, '').replace(/:[\d*]+$/, '')),
  );
