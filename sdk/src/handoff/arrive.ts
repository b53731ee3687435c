import { type Handed, redeem } from './redeem.ts';

/** A sibling domain's token (`cs_handoff`) or an app's (`cs_app`): both are redeemed alike. */
const TOKEN = /(^#|&)cs_(?:handoff|app)=([^&]*)/;

/**
 * The handoff token the address's fragment brings (`#cs_handoff=<token>`, put there by the page of a
 * sibling domain the visitor came from, or `#cs_app=<token>` by the app whose WebView this is), or null. It is taken out of the address bar, so it is not
 * bookmarked, shared or redeemed twice; the rest of the fragment stays.
 */
export function takeToken(): string | null {
  const match = TOKEN.exec(location.hash);
  if (!match) return null;
  const rest = location.hash
    .replace(TOKEN, (_, lead) => (lead === '#' ? '#' : ''))
    .replace(/^#&/, '#')
    .replace(/^#$/, '');
  history.replaceState(history.state, '', location.pathname + location.search + rest);
  return decodeURIComponent(match[2]);
}

/** On arrival from a sibling domain: the token taken from the address and redeemed for `subjectId`. */
export function arrive(site: string, subjectId: string): Promise<Handed | null> {
  const token = takeToken();
  return token ? redeem(site, token, subjectId) : Promise.resolve(null);
}
