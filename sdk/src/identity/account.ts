import type { AccountChoice } from '../account-choice.ts';

export { type AccountChoice, reconcile } from '../account-choice.ts';

/**
 * Asks the service for the account's choice with the site backend's identity token. `undefined`:
 * the token was refused (401) or the service could not be reached; the visitor is then treated as
 * not signed in, so a bad token never blocks the banner.
 */
export async function fetchAccountChoice(
  site: string,
  token: string,
): Promise<AccountChoice | null | undefined> {
  try {
    const res = await fetch(`${site}/identity`, {
      method: 'POST',
      credentials: 'same-origin',
      referrerPolicy: 'no-referrer',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    if (!res.ok) {
      console.warn(`[consent-service] identity token not accepted: HTTP ${res.status}`);
      return undefined;
    }
    return ((await res.json()).data?.state as AccountChoice | null) ?? null;
  } catch {
    return undefined;
  }
}
