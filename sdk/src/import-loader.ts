import { pieceUrl } from './bundle-urls.ts';
import { loadBundle } from './load-bundle.ts';
import type { ImportedChoice, SiteConfig } from './types.ts';

/** How long a visitor with an old CMP's cookie waits for import.js before being asked instead. */
const IMPORT_TIMEOUT_MS = 5000;

/** The cookies the previous CMPs write (OneTrust, Cookiebot, TCF): only a visitor with one loads import.js. */
const CMP_COOKIE = /(^|;\s*)(OptanonConsent|CookieConsent|euconsent-v2)=/;

type Registered = { readImport(cookies: string, config: SiteConfig, now: number): ImportedChoice | null };

/**
 * The choice a visitor made in the site's previous CMP (import.js reads and maps it), for a
 * visitor with no decision of ours: null (not a promise) at once when the channel imports nothing
 * or the page has none of those CMPs' cookies, so most visitors go on in the same task; a promise
 * of null when import.js cannot be had in time or the cookie does not stand for a decision here.
 */
export function loadImport(site: string, config: SiteConfig): Promise<ImportedChoice | null> | null {
  const cookies = document.cookie;
  if (!config.imports?.length || !CMP_COOKIE.test(cookies)) return null;
  return loadBundle(pieceUrl(site, 'import'), '__consentServiceImport', IMPORT_TIMEOUT_MS, (i: Registered) =>
    i.readImport(cookies, config, Date.now()),
  );
}
