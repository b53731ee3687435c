import { createHash } from 'node:crypto';
import { randomBase62, toBase62 } from '../ids.ts';
import type { Environment } from './scopes.ts';

/**
 * API key secrets: `svc_<env>_` + 32 random base62 chars (about 190 bits) + a 6-char checksum.
 * The checksum lets the service (and secret scanners) reject a mistyped key without a lookup.
 */
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^svc_(test|live)_([0-9A-Za-z]{38})$/;

function checksum(prefixAndBody: string): string {
  return toBase62(createHash('sha256').update(prefixAndBody).digest().subarray(0, 5), CHECKSUM_LENGTH);
}

export function generateApiKeySecret(environment: Environment): string {
  const head = `svc_${environment}_${randomBase62(BODY_LENGTH)}`;
  return head + checksum(head);
}

/** The environment of a well-formed key with a valid checksum, else null. */
export function parseApiKeySecret(secret: string): { environment: Environment } | null {
  const match = KEY_PATTERN.exec(secret);
  if (!match) return null;
  const head = secret.slice(0, -CHECKSUM_LENGTH);
  if (checksum(head) !== secret.slice(-CHECKSUM_LENGTH)) return null;
  return { environment: match[1] as Environment };
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What lists show so people can tell keys apart: the first 12 characters. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 12);
}
