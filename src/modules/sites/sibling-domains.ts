import { originHost, registrableDomain } from '../channels/origins.service.ts';
import type { Site } from './sites.service.ts';

/** One registrable domain of a channel and its active origins on it. */
export interface SiblingDomain {
  domain: string;
  origins: string[];
}

/**
 * The channel's active origins grouped by registrable domain (the Public Suffix List's), in the order
 * they were registered: the config's `siblingDomains` (docs/guides/keep-the-choice.md). Only for a
 * channel with crossDomain on whose origins span more than one registrable domain: elsewhere there
 * is nothing to hand over, and the answer is [].
 */
export function siblingDomains(site: Pick<Site, 'origins' | 'config'>): SiblingDomain[] {
  if (!site.config.crossDomain) return [];
  const groups = new Map<string, string[]>();
  for (const origin of site.origins) {
    const domain = registrableDomain(originHost(origin));
    const group = groups.get(domain);
    if (group) group.push(origin);
    else groups.set(domain, [origin]);
  }
  return groups.size > 1 ? [...groups].map(([domain, origins]) => ({ domain, origins })) : [];
}

/** The registrable domain of an origin (or an Origin header already matched to one). */
export const domainOfOrigin = (origin: string): string => registrableDomain(originHost(origin));
