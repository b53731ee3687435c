import type { Regime } from '../regions/regions.schemas.ts';
import { MAX_OBSERVATIONS_PER_PHASE, type PageScan } from './browser/index.ts';

/**
 * What a succeeded scan could not see, said with the scan so its findings are not taken for the
 * whole truth: a banner that never loaded or was never found (the reject and accept phases then saw
 * the page without a choice), hosts the address rules refused, findings cut off at the cap.
 */
export function scanWarnings(pages: PageScan[], bannerLoaded: boolean, regime: Regime): string[] {
  const warnings: string[] = [];
  if (!bannerLoaded) {
    warnings.push(
      "The channel's banner did not load on any page (neither sdk.js nor its config was loaded): check that the snippet is on the page and that the scanner's browser can reach the service. The reject-all and accept-all phases saw the pages without a choice.",
    );
  }
  for (const page of pages) {
    // Only the opt-in banner has both buttons; other regimes show none that blocks the page.
    if (bannerLoaded && regime === 'opt-in' && (!page.bannerFound.reject || !page.bannerFound.accept)) {
      warnings.push(
        `No consent banner was found on ${page.url}: its reject-all and accept-all phases saw the page without a choice.`,
      );
    }
    if (page.refusedHosts.length > 0) {
      warnings.push(
        `${page.url} asked for ${page.refusedHosts.join(', ')}, which the address rules refused (not public, or not found): nothing from there was loaded.`,
      );
    }
    if (page.truncated) {
      warnings.push(
        `${page.url} set more than ${MAX_OBSERVATIONS_PER_PHASE} items of one kind in one phase: the findings stop there.`,
      );
    }
  }
  return warnings;
}
