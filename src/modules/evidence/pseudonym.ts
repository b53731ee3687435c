import { createHmac } from 'node:crypto';

/**
 * A visitor's keyed pseudonym: `psn_` + the 64 hex characters of
 * HMAC-SHA-256(organization's pseudonymSecret, subjectId). Keyed, so nobody without the secret can
 * test a guessed subject id against stored evidence; per organization, so two customers' evidence
 * about the same id cannot be joined.
 */
export function pseudonymOf(secret: Buffer, subjectId: string): string {
  return `psn_${createHmac('sha256', secret).update(subjectId, 'utf8').digest('hex')}`;
}

/** What the account pseudonyms' key is derived with, from the organization's pseudonymSecret. */
const ACCOUNT_KEY_LABEL = 'consent-service account pseudonym v1';

/**
 * A signed-in visitor's account pseudonym (docs/guides/signed-in-visitors.md): the same form, keyed
 * with a key derived for accounts alone. A visitor chooses their own subjectId, so with one key a
 * device whose subjectId is someone's account id would write into that account's consent state;
 * with two, account and device pseudonyms never meet.
 */
export function accountPseudonymOf(secret: Buffer, accountId: string): string {
  return pseudonymOf(createHmac('sha256', secret).update(ACCOUNT_KEY_LABEL).digest(), accountId);
}

/** The pseudonym as reads show it: `psn_****` + its last 4 characters. */
export function maskPseudonym(pseudonym: string): string {
  return `psn_****${pseudonym.slice(-4)}`;
}
