import { type Handed, redeem } from './redeem.ts';

const TOKEN = /(^#|&)cs_handoff=([^&]*)/;

/**
 * The handoff token the address's fragment brings (`#cs_handoff=<token>`, put there by the page of a
 * sibling domain the visitor came from), or null. It is taken out of the address bar, so it is not
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
