import { createHash } from 'node:crypto';

/**
 * An independent RFC 9162 §2.1 implementation for the tests, written from the RFC's text and
 * deliberately sharing nothing with src/modules/ledger/merkle.ts: the reference definitions
 * (MTH, PATH, PROOF) as the RFC's recursion over a leaf list, and the two verification algorithms
 * (§2.1.3.2, §2.1.4.2) step by step. Hashes are hex strings here, to keep the two apart.
 */

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const hex = (b: Buffer) => b.toString('hex');
const bin = (h: string) => Buffer.from(h, 'hex');

/** SHA-256(0x00 ‖ data), hex. */
export const leafHashOf = (data: Buffer): string => hex(sha256(Buffer.from([0]), data));
const node = (left: string, right: string) => hex(sha256(Buffer.from([1]), bin(left), bin(right)));

/** k: the largest power of two smaller than n. */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k << 1 < n) k <<= 1;
  return k;
}

/** MTH(D[n]) over leaf hashes (§2.1.1). */
export function mth(leaves: string[]): string {
  if (leaves.length === 0) return hex(sha256());
  if (leaves.length === 1) return leaves[0];
  const k = largestPowerOfTwoBelow(leaves.length);
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** PATH(m, D[n]) (§2.1.3.1). */
export function path(m: number, leaves: string[]): string[] {
  if (leaves.length <= 1) return [];
  const k = largestPowerOfTwoBelow(leaves.length);
  return m < k
    ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) (§2.1.4.1). */
export function proof(m: number, leaves: string[]): string[] {
  const subproof = (m: number, d: string[], b: boolean): string[] => {
    if (m === d.length) return b ? [] : [mth(d)];
    const k = largestPowerOfTwoBelow(d.length);
    return m <= k
      ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))]
      : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
  };
  return subproof(m, leaves, true);
}

const lsb = (x: number) => x % 2 === 1;
const shr = (x: number) => Math.floor(x / 2);

/** §2.1.3.2: verifies an inclusion proof. */
export function verifyInclusionProof(
  leafIndex: number,
  treeSize: number,
  leafHash: string,
  inclusionPath: string[],
  rootHash: string,
): boolean {
  if (leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of inclusionPath) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      r = node(p, r);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0) {
          fn = shr(fn);
          sn = shr(sn);
        }
      }
    } else {
      r = node(r, p);
    }
    fn = shr(fn);
    sn = shr(sn);
  }
  return sn === 0 && r === rootHash;
}

/** §2.1.4.2: verifies a consistency proof (first = second with an empty proof: equal roots). */
export function verifyConsistencyProof(
  first: number,
  second: number,
  firstHash: string,
  secondHash: string,
  consistencyPath: string[],
): boolean {
  if (first === second) return consistencyPath.length === 0 && firstHash === secondHash;
  if (first < 1 || first > second) return false;
  if (consistencyPath.length === 0) return false;
  let path = consistencyPath;
  if (Number.isInteger(Math.log2(first))) path = [firstHash, ...path];
  let fn = first - 1;
  let sn = second - 1;
  while (lsb(fn)) {
    fn = shr(fn);
    sn = shr(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0) {
          fn = shr(fn);
          sn = shr(sn);
        }
      }
    } else {
      sr = node(sr, c);
    }
    fn = shr(fn);
    sn = shr(sn);
  }
  return fr === firstHash && sr === secondHash && sn === 0;
}

/** Flips one bit of a hex string (at character `at`). */
export function flipHex(h: string, at = 0): string {
  const digit = (Number.parseInt(h[at], 16) ^ 1).toString(16);
  return h.slice(0, at) + digit + h.slice(at + 1);
}
