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

/** The pseudonym as reads show it: `psn_****` + its last 4 characters. */
export function maskPseudonym(pseudonym: string): string {
  return `psn_****${pseudonym.slice(-4)}`;
}
