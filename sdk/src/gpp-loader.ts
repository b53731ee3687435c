import { pieceUrl } from './bundle-urls.ts';
import { gppApplies } from './gpp-applies.ts';
import { loadBundle } from './load-bundle.ts';
import type { GppHandle, SiteConfig } from './types.ts';

/** How long the SDK waits for gpp.js before it goes on without GPP. */
export const GPP_TIMEOUT_MS = 5000;

/** What gpp.js registers when it runs (sdk/src/gpp/index.ts). */
type Registered = { start(cmpId: number, sections?: string, region?: string | null): GppHandle };

/**
 * Loads gpp.js from the service (`site`: `…/v1/public/sites/<siteKey>`, the only host the SDK talks to) and starts it with the channel's
 * CMP id. Null (not a promise) when GPP does not apply, so the SDK goes on in the same task; a promise
 * of null when the bundle fails to load or register within GPP_TIMEOUT_MS: the SDK works without
 * GPP, it only loses the IAB signal.
 */
export function loadGpp(site: string, config: SiteConfig): Promise<GppHandle | null> | null {
  if (!gppApplies(config)) return null;
  return loadBundle(pieceUrl(site, 'gpp'), '__consentServiceGpp', GPP_TIMEOUT_MS, (gpp: Registered) =>
    gpp.start(config.gppCmpId as number, config.gppSections, config.region?.code),
  );
}
