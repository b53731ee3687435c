import { pieceUrl } from './bundle-urls.ts';
import { onTestChannel as onTest } from './declared-region.ts';
import { loadBundle } from './load-bundle.ts';

/**
 * The developer panel (debug.js, docs/guides/developer-panel.md) is for test channels alone: their
 * site keys say so (`site_test_…`, as for a declared region), so sdk.js needs no field in the config
 * to know, and on a live channel it never asks for debug.js (the service refuses it there too).
 *
 * The region the panel chose for this tab (sessionStorage, per site key), which this page's SDK
 * declares instead of `data-region`; null: none. Undefined on a live channel (or where storage is
 * refused): there the panel never loads. While a region is kept the panel opens on every page of
 * the tab, so an override is never in force unseen.
 */
export function debugRegion(siteKey: string): string | null | undefined {
  try {
    if (onTest(siteKey)) return sessionStorage.getItem(`cs_debug_${siteKey}`);
  } catch {
    // storage refused (a sandboxed frame, cookies blocked): no override
  }
}

/**
 * Loads debug.js and opens its panel on `instance` (the SDK's own state record, which the panel
 * reads and listens to; its buttons call the instance's API, which the page's registry of running
 * SDKs holds by site key). Only where debugRegion said a test channel (not undefined).
 */
export const openDebug = (site: string, instance: unknown) =>
  loadBundle(pieceUrl(site, 'debug'), '__consentServiceDebug', 10_000, (open: DebugOpen) => open(instance));

type DebugOpen = (instance: unknown) => void;
