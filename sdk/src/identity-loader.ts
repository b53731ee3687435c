import { pieceUrl } from './bundle-urls.ts';
import type { AccountChoice, fetchAccountChoice, reconcile } from './identity/account.ts';
import { loadBundle } from './load-bundle.ts';

/** How long a signed-in visitor waits for identity.js and the account's choice before going on without. */
const IDENTITY_TIMEOUT_MS = 8000;

/**
 * What a sign-in gives: the account's choice (null: none yet; undefined: the token was refused or
 * the service out of reach, and the visitor is treated as not signed in) and how it meets this
 * device's own (docs/guides/signed-in-visitors.md).
 */
export interface SignedIn {
  account: AccountChoice | null | undefined;
  reconcile: typeof reconcile;
}

type Registered = { fetchAccountChoice: typeof fetchAccountChoice; reconcile: typeof reconcile };

/**
 * Asks for the account's choice with the site's identity token, through identity.js: signing in is
 * for the visitors of sites that have accounts, so its code pays its own bytes (sdk/src/bundle-urls.ts).
 * Null when identity.js cannot be had in time: as a refused token, the visitor is not signed in.
 */
export const signInWith = (site: string, token: string): Promise<SignedIn | null> =>
  loadBundle(pieceUrl(site, 'identity'), '__consentServiceIdentity', IDENTITY_TIMEOUT_MS, (r: Registered) =>
    r.fetchAccountChoice(site, token).then((account) => ({ account, reconcile: r.reconcile })),
  );
