import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Member passwords, hashed with scrypt from node:crypto: memory-hard like argon2id, with no native
 * dependency to install. N=2^15, r=8 takes 32 MiB and about 50-100 ms per hash here. The stored
 * string carries its own parameters and salt, so they can be raised later without a migration:
 * `scrypt$N$r$p$<salt base64>$<hash base64>`.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, params: typeof PARAMS): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LENGTH,
      // 128 * N * r bytes, plus headroom: Node's default maxmem (32 MiB) is exactly too small.
      { ...params, maxmem: 256 * params.N * params.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

/** Why a password cannot be used, or null when it can. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, PARAMS);
  const { N, r, p } = PARAMS;
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Constant-time check of a password against a stored hash; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password.slice(0, MAX_PASSWORD_LENGTH), Buffer.from(salt, 'base64'), params);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * A hash of a password nobody knows, checked when the email is unknown or has no password, so
 * that a failed sign-in costs the same time whichever of the two was wrong.
 */
let dummy: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64'));
  return dummy;
}
