import type { Site } from './sites.service.ts';

/**
 * Where a site's pages may run: the channel's active origins and, on test channels only, any page
 * of the developer's own machine over http (`localhost` or `127.0.0.1`, any port), so a first page
 * works before anything is registered. Live channels accept registered origins alone.
 *
 * The config names them (`origins`, as these patterns), and the SDK checks the page against them
 * before it shows or runs anything (sdk/src/page-origin.ts); the public POSTs check the Origin
 * header against the same set (cors.ts). A page elsewhere would show a banner whose decisions the
 * service refuses, so the SDK stays silent there instead.
 */
const LOCAL_PAGES = ['http://localhost:*', 'http://127.0.0.1:*'];
/** Exactly what a browser sends as the Origin of such a page: no path, no credentials, no space. */
const LOCAL_PAGE = /^http:\/\/(localhost|127\.0\.0\.1)(:[1-9]\d{0,4})?$/;

/** The config's `origins`: the registered origins, in the order they were added, then the local pages. */
export function pageOrigins(site: Site): string[] {
  return acceptsLocalPages(site) ? [...site.origins, ...LOCAL_PAGES] : site.origins;
}

/** An app channel has no pages at all (docs/guides/apps.md): its test channels accept no local one. */
const acceptsLocalPages = (site: Site) =>
  site.channel.environment === 'test' && site.channel.platform === 'web';

/** Whether an Origin header is a local page that the site accepts unregistered (a test channel's). */
export function acceptsLocalPage(site: Site, origin: string): boolean {
  return acceptsLocalPages(site) && LOCAL_PAGE.test(origin);
}
