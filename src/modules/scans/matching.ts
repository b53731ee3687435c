/**
 * How a declared technology covers what a scan saw. Dependency-free: the worker's findings and the
 * console's "declared since the scan" check (console/src/views/scans.ts) use the same rules.
 */

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
