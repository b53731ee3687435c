import { originListed } from '../page-origin.ts';
import { otherDomains } from '../siblings.ts';
import type { SiteConfig } from '../types.ts';

/** How long a followed link waits for its token before it is followed without one. */
const TOKEN_WAIT_MS = 1500;

/** What the page's SDK knows when a link is followed: the visitor's id, if they have decided. */
export interface FollowContext {
  site: string;
  config: SiteConfig;
  subjectId(): string | null;
}

/** The link a click follows in this tab (a plain click on an `<a href>` with no other target), or null. */
function followedLink(event: MouseEvent): HTMLAnchorElement | null {
  if (event.defaultPrevented || event.button !== 0) return null;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return null;
  const link = (event.target as Element).closest?.('a[href]') as HTMLAnchorElement | null;
  if (!link || link.hasAttribute('download')) return null;
  const target = link.target.toLowerCase();
  return !target || target === '_self' || target === '_top' ? link : null;
}

/** `href` with `#cs_handoff=<token>` added (after the link's own fragment, if it has one). */
export function withToken(href: string, token: string): string {
  const url = new URL(href);
  const own = url.hash.slice(1);
  url.hash = `${own ? `${own}&` : ''}cs_handoff=${encodeURIComponent(token)}`;
  return url.href;
}

/**
 * Hands the visitor's choice over on links to the channel's sibling domains: as a plain click
 * follows such a link, the SDK asks the service for a single-use token bound to the link's origin
 * (`POST …/handoffs`) and follows it with the token in the fragment, which reaches no server and
 * no Referer. A visitor with no decision yet, a link elsewhere, a new tab, or a token that does not
 * come within TOKEN_WAIT_MS: the link is followed as it is.
 */
export function followLinks(ctx: FollowContext) {
  document.addEventListener('click', (event) => {
    const link = followedLink(event);
    const subjectId = ctx.subjectId();
    if (!link || !subjectId) return;
    let target: URL;
    try {
      target = new URL(link.href);
    } catch {
      return;
    }
    const sibling = otherDomains(ctx.config, location.origin).some((group) =>
      originListed(group.origins, target.origin),
    );
    if (!sibling) return;
    event.preventDefault();
    let gone = false;
    const go = (href: string) => {
      if (gone) return;
      gone = true;
      location.assign(href);
    };
    setTimeout(() => go(link.href), TOKEN_WAIT_MS);
    fetch(`${ctx.site}/handoffs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ subjectId, target: target.origin }),
      credentials: 'same-origin',
    })
      .then((res) => (res.ok ? res.json() : null))
      .then(
        (body) => body?.data?.token,
        () => null,
      )
      .then((token) => go(token ? withToken(link.href, token) : link.href));
  });
}
