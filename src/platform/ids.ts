import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a pool refilled 8 KiB at a time: one `randomBytes` call per id cost ~8 %
 * of a cached config read (every request gets a generated id). Each byte is handed out once, as
 * Node's own `randomUUID` does with its cache.
 */
const pool = Buffer.alloc(8192);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** The offset of `length` fresh bytes in the pool (refilled first when fewer are left). */
function takeFromPool(length: number): number {
  if (length > pool.length) throw new RangeError(`at most ${pool.length} random bytes at a time`);
  if (pool.length - poolOffset < length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += length;
  return poolOffset - length;
}

/**
 * `length` CSPRNG bytes from the pool, as a new Buffer: for the secrets and IVs made per consent
 * write (a receipt token, a sealed response's IV), where one `randomBytes` call each cost more
 * than the AES-GCM seal itself.
 */
export function randomBytesPooled(length: number): Buffer {
  const start = takeFromPool(length);
  return Buffer.from(pool.subarray(start, start + length));
}

/** `length` CSPRNG bytes from the pool as base64url (no copy of the bytes). */
export function randomBase64url(length: number): string {
  const start = takeFromPool(length);
  return pool.toString('base64url', start, start + length);
}

/** Uniformly random base62 string (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export function toBase62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(length, '0').slice(-length);
}

export type IdPrefix =
  | 'ch'
  | 'pur'
  | 'tec'
  | 'ori'
  | 'app'
  | 'evt'
  | 'exp'
  | 'scn'
  | 'whd'
  | 'dlv'
  | 'key'
  | 'aud'
  | 'org'
  | 'mem'
  | 'job'
  | 'msg'
  | 'ses'
  | 'isk';

/** Opaque resource identifier: `<prefix>_` + 22 base62 chars (about 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

/**
 * The time-ordered part of an id: the milliseconds since 1970 in 9 characters of 0-9 and A-Z (to
 * the year 5188), then a 3-character counter of the ids this process made in that millisecond.
 * Those 36 characters sort in the same order under every collation PostgreSQL may give the id
 * column: bytewise (C), glibc's and ICU's linguistic ones (digits before letters, letters compared
 * by their one case), so `id desc` is newest first whatever the database's locale.
 */
const TIME_DIGITS = 9;
const COUNTER_DIGITS = 3;
const COUNTER_MAX = 36 ** COUNTER_DIGITS - 1;
let lastMs = -1;
let counter = 0;
let msPrefix = '';

/**
 * An id whose order follows `at` to the millisecond, and the order this process made its ids within
 * one: for the lists read newest first by a whole-second time and then the id (evidence, the audit
 * log), where a random id would order the events of one second by chance. Same format as `newId`:
 * `<prefix>_` + 22 base62 characters, the last 10 random (about 59 bits, beside a time and counter
 * that two ids share only when made in the same millisecond).
 */
export function newTimeOrderedId(prefix: IdPrefix, at: Date): string {
  const ms = at.getTime();
  if (ms !== lastMs) {
    // A clock set back starts its millisecond's counter again: ids stay unique by their random part.
    lastMs = ms;
    counter = 0;
    msPrefix = ms.toString(36).toUpperCase().padStart(TIME_DIGITS, '0');
  } else if (counter < COUNTER_MAX) {
    counter++;
  }
  const count = counter.toString(36).toUpperCase().padStart(COUNTER_DIGITS, '0');
  return `${prefix}_${msPrefix}${count}${randomBase62(22 - TIME_DIGITS - COUNTER_DIGITS)}`;
}
