import { createHash } from 'node:crypto';

/**
 * RFC 9162 §2.1 Merkle trees, as pure functions.
 *
 * Storage keeps only "perfect" subtrees: the hash of 2^level leaves starting at index·2^level
 * (level 0 is a leaf). Every range the RFC's recursion visits starts at a multiple of a power of
 * two at least its size, so its hash is a right fold of at most log2(n) perfect subtrees (one per
 * set bit of its size). The proof builders below therefore name the perfect nodes they need
 * (`rangeNodes`), callers fetch those (O(log n) rows: stored nodes, and for the small ones the leaf
 * blocks they fold from, see merkle-blocks.ts), and `rangeHash` folds them.
 */

export interface NodeRef {
  level: number;
  index: number;
}

/** A lookup of perfect subtree hashes by `nodeKey`. */
export type NodeHashes = Map<string, Buffer>;

export const nodeKey = (ref: NodeRef) => `${ref.level}:${ref.index}`;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export function hashLeaf(data: Buffer): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

export function hashChildren(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** MTH of the empty tree (RFC 9162 §2.1.1): the hash of nothing. */
export const EMPTY_ROOT = createHash('sha256').digest();

/** The largest power of two strictly smaller than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A half-open leaf range [start, end). */
export interface Range {
  start: number;
  end: number;
}

/**
 * The perfect subtrees whose right fold is MTH(D[start:end]), left to right. Valid for ranges
 * whose start is a multiple of a power of two ≥ their size, which is every range of §2.1.
 */
export function rangeNodes({ start, end }: Range): NodeRef[] {
  const refs: NodeRef[] = [];
  // From the largest power of two that fits (proofs call this for every range of their path).
  let [level, size] = [0, 1];
  while (size * 2 <= end - start) [level, size] = [level + 1, size * 2];
  for (let at = start; level >= 0; level--, size /= 2) {
    if (end - at >= size) {
      refs.push({ level, index: at / size });
      at += size;
    }
  }
  return refs;
}

/** MTH(D[start:end]) from the perfect subtrees named by `rangeNodes`. */
export function rangeHash(range: Range, nodes: NodeHashes): Buffer {
  if (range.end <= range.start) return EMPTY_ROOT;
  const refs = rangeNodes(range);
  let hash = lookup(nodes, refs[refs.length - 1]);
  for (let i = refs.length - 2; i >= 0; i--) hash = hashChildren(lookup(nodes, refs[i]), hash);
  return hash;
}

function lookup(nodes: NodeHashes, ref: NodeRef): Buffer {
  const hash = nodes.get(nodeKey(ref));
  if (!hash) throw new Error(`missing Merkle node level ${ref.level} index ${ref.index}`);
  return hash;
}

/** The ranges whose hashes form PATH(m, D[n]) (RFC 9162 §2.1.3.1), leaf side first. */
export function inclusionRanges(m: number, n: number): Range[] {
  if (m < 0 || m >= n) throw new RangeError(`leaf ${m} is not in a tree of ${n}`);
  const path: Range[] = [];
  let [start, end, index] = [0, n, m];
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < k) {
      path.push({ start: start + k, end });
      end = start + k;
    } else {
      path.push({ start, end: start + k });
      start += k;
      index -= k;
    }
  }
  return path.reverse();
}

/** The ranges whose hashes form PROOF(m, D[n]) (RFC 9162 §2.1.4.1), in proof order. */
export function consistencyRanges(m: number, n: number): Range[] {
  if (m < 1 || m > n) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  const proof: Range[] = [];
  let [start, end, size, complete] = [0, n, m, true];
  // SUBPROOF(m, D[start:end], b), unrolled: each step adds one sibling, emitted innermost first.
  while (size !== end - start) {
    const k = splitPoint(end - start);
    if (size <= k) {
      proof.push({ start: start + k, end });
      end = start + k;
    } else {
      proof.push({ start, end: start + k });
      start += k;
      size -= k;
      complete = false;
    }
  }
  if (!complete) proof.push({ start, end });
  return proof.reverse();
}

/** Every perfect node the given ranges need, without duplicates. */
export function nodesFor(ranges: Range[]): NodeRef[] {
  const seen = new Map<string, NodeRef>();
  for (const range of ranges) for (const ref of rangeNodes(range)) seen.set(nodeKey(ref), ref);
  return [...seen.values()];
}

/**
 * The perfect nodes of an in-memory run of leaves starting at leaf `start` (a multiple of a power
 * of two at least the run's length): every level's complete pairs. A whole tree (tests, the offline
 * tools) costs O(n); the database keeps the same nodes incrementally (see appendLeaves).
 */
export function perfectNodesOf(leaves: Buffer[], start = 0): NodeHashes {
  const nodes: NodeHashes = new Map();
  let level = leaves;
  for (let l = 0; level.length > 0; l++) {
    const first = start / 2 ** l;
    for (const [i, hash] of level.entries()) nodes.set(nodeKey({ level: l, index: first + i }), hash);
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(hashChildren(level[i], level[i + 1]));
    level = next;
  }
  return nodes;
}

/** The right edge of a tree of `size` leaves: its perfect subtrees, largest first (one per set bit). */
export const frontierOf = (size: number): NodeRef[] => rangeNodes({ start: 0, end: size });

/**
 * Appends leaves to a tree of `size` leaves whose frontier hashes are given, and returns every
 * perfect node the new leaves complete (level 0 included), in the order they complete.
 */
export function appendLeaves(size: number, frontier: NodeHashes, leaves: Buffer[]) {
  const created: Array<NodeRef & { hash: Buffer }> = [];
  // Open subtrees waiting for a right sibling, smallest on top.
  const stack = frontierOf(size).map((ref) => ({ ...ref, hash: lookup(frontier, ref) }));
  let next = size;
  for (const leaf of leaves) {
    let node = { level: 0, index: next, hash: leaf };
    created.push(node);
    while (stack.length > 0 && stack[stack.length - 1].level === node.level) {
      const left = stack.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: hashChildren(left.hash, node.hash) };
      created.push(node);
    }
    stack.push(node);
    next++;
  }
  return created;
}

/** RFC 9162 §2.1.3.2: does `path` prove leaf `m` with hash `leaf` into a tree of `n` with `root`? */
export function verifyInclusion(m: number, n: number, leaf: Buffer, path: Buffer[], root: Buffer): boolean {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 0 || m >= n) return false;
  let [fn, sn, r] = [m, n - 1, leaf];
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: does `proof` show the tree of `m` with `root1` is a prefix of the tree of `n` with `root2`? */
export function verifyConsistency(
  m: number,
  n: number,
  root1: Buffer,
  root2: Buffer,
  proof: Buffer[],
): boolean {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 1 || m > n) return false;
  if (m === n) return proof.length === 0 && root1.equals(root2);
  if (proof.length === 0) return false;
  // Step 2: when m is a power of two the first tree is itself a node of the proof.
  const path = isPowerOfTwo(m) ? [root1, ...proof] : proof;
  let [fn, sn] = [m - 1, n - 1];
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let [fr, sr] = [path[0], path[0]];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(root1) && sr.equals(root2) && sn === 0;
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}
