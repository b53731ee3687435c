import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
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
  | 'evt'
  | 'exp'
  | 'whd'
  | 'dlv'
  | 'key'
  | 'aud'
  | 'org'
  | 'mem'
  | 'job'
  | 'msg'
  | 'ses';

/** Opaque resource identifier: `<prefix>_` + 22 base62 chars (about 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
