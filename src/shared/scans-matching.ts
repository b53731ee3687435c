/**
 * The rules by which a scan's findings are judged that the console applies too
 * (console/src/views/scans.ts: "declared since the scan", the banner's own items, the purpose a
 * click declares), used by the scans module as well. src/shared/ holds what the console and the
 * service share: it imports nothing outside src/shared/, no package either, so the console bundles
 * it as it is.
 */

/** The vendor of the banner's own cookies and requests in a finding's classification. */
export const OWN_VENDOR = 'consent-service';

const NECESSARY_CATEGORIES = new Set(['functional', 'security', 'necessary']);

/** Whether an Open Cookie Database category may run without consent. */
export function isNecessaryCategory(category: string): boolean {
  return NECESSARY_CATEGORIES.has(category.trim().toLowerCase());
}

/**
 * A declared cookie name matches exactly, or, ending in `*`, as a prefix (`_ga_*` matches
 * `_ga_ABC123`); names compare as written, as browsers do.
 */
export function cookieNameMatches(declared: string, name: string): boolean {
  return declared.endsWith('*') ? name.startsWith(declared.slice(0, -1)) : declared === name;
}

/**
 * A declared host matches the request's host exactly (with its port when it has one); `*.example.com`
 * matches example.com and its subdomains. Host names compare case-insensitively.
 */
export function hostMatches(declared: string, host: string): boolean {
  const want = declared.toLowerCase();
  const have = host.toLowerCase();
  const bare = have.replace(/:\d+$/, '');
  if (want.startsWith('*.')) {
    const base = want.slice(2);
    const target = base.includes(':') ? have : bare;
    return target === base || target.endsWith(`.${base}`);
  }
  return want === have || want === bare;
}
