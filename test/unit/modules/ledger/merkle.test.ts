import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  consistencyRanges,
  frontierOf,
  hashLeaf,
  inclusionRanges,
  type NodeHashes,
  nodeKey,
  nodesFor,
  perfectNodesOf,
  rangeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../../../src/modules/ledger/merkle.ts';
import * as ref from '../../../ledger/rfc9162.ts';

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => hashLeaf(Buffer.from(`event ${i}`)));
const hex = (b: Buffer) => b.toString('hex');

describe('merkle (checked against the RFC 9162 reference in test/ledger/rfc9162.ts)', () => {
  const leaves = leavesOf(70);
  const nodes = perfectNodesOf(leaves);
  const refLeaves = leaves.map(hex);

  it('leaf hash is SHA-256(0x00 ‖ data)', () => {
    const data = Buffer.from('hello');
    expect(hex(hashLeaf(data))).toBe(ref.leafHashOf(data));
  });

  it('roots and inclusion paths for every leaf of trees of 1 to 70 leaves', () => {
    for (let n = 1; n <= 70; n++) {
      const root = hex(rangeHash({ start: 0, end: n }, nodes));
      expect(root).toBe(ref.mth(refLeaves.slice(0, n)));
      for (let m = 0; m < n; m++) {
        const path = inclusionRanges(m, n).map((r) => hex(rangeHash(r, nodes)));
        expect(path).toEqual(ref.path(m, refLeaves.slice(0, n)));
        expect(ref.verifyInclusionProof(m, n, refLeaves[m], path, root)).toBe(true);
        expect(
          verifyInclusion(
            m,
            n,
            leaves[m],
            path.map((h) => Buffer.from(h, 'hex')),
            Buffer.from(root, 'hex'),
          ),
        ).toBe(true);
      }
    }
  });

  it('consistency proofs between every pair of sizes up to 40', () => {
    for (let m = 1; m <= 40; m++) {
      for (let n = m; n <= 40; n++) {
        const proof = consistencyRanges(m, n).map((r) => hex(rangeHash(r, nodes)));
        expect(proof).toEqual(ref.proof(m, refLeaves.slice(0, n)));
        const [first, second] = [ref.mth(refLeaves.slice(0, m)), ref.mth(refLeaves.slice(0, n))];
        expect(ref.verifyConsistencyProof(m, n, first, second, proof)).toBe(true);
        const bufs = proof.map((h) => Buffer.from(h, 'hex'));
        expect(verifyConsistency(m, n, Buffer.from(first, 'hex'), Buffer.from(second, 'hex'), bufs)).toBe(
          true,
        );
        if (proof.length > 0) {
          const tampered = [...proof];
          tampered[tampered.length - 1] = ref.flipHex(tampered[tampered.length - 1], 5);
          expect(ref.verifyConsistencyProof(m, n, first, second, tampered)).toBe(false);
        }
      }
    }
  });

  it('appending in batches of any size writes exactly the perfect subtrees of the whole tree', () => {
    for (const batch of [1, 2, 3, 7, 64, 100]) {
      const stored: NodeHashes = new Map();
      let size = 0;
      while (size < 70) {
        const next = leaves.slice(size, size + batch);
        const frontier = new Map(frontierOf(size).map((r) => [nodeKey(r), stored.get(nodeKey(r))!]));
        for (const n of appendLeaves(size, frontier, next)) stored.set(nodeKey(n), n.hash);
        size += next.length;
      }
      expect(new Map([...stored].map(([k, v]) => [k, hex(v)]))).toEqual(
        new Map([...nodes].map(([k, v]) => [k, hex(v)])),
      );
    }
  });

  it('a proof needs O(log n) stored subtrees', () => {
    const n = 1_000_003;
    for (const m of [0, 1, 500_000, n - 2, n - 1]) {
      expect(nodesFor(inclusionRanges(m, n)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
    }
    expect(nodesFor(consistencyRanges(777_777, n)).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)));
  });

  it('a flipped bit in the leaf, a path element or the root fails verification', () => {
    const n = 37;
    const root = ref.mth(refLeaves.slice(0, n));
    for (const m of [0, 12, 36]) {
      const path = ref.path(m, refLeaves.slice(0, n));
      const check = (leaf: string, p: string[], r: string) =>
        verifyInclusion(
          m,
          n,
          Buffer.from(leaf, 'hex'),
          p.map((h) => Buffer.from(h, 'hex')),
          Buffer.from(r, 'hex'),
        );
      expect(check(refLeaves[m], path, root)).toBe(true);
      expect(check(ref.flipHex(refLeaves[m], 63), path, root)).toBe(false);
      for (let i = 0; i < path.length; i++) {
        const tampered = path.map((h, j) => (j === i ? ref.flipHex(h, 10) : h));
        expect(check(refLeaves[m], tampered, root)).toBe(false);
      }
      expect(check(refLeaves[m], path, ref.flipHex(root, 0))).toBe(false);
      expect(check(refLeaves[m], path.slice(1), root)).toBe(false);
      expect(
        verifyInclusion(
          m + 1,
          n,
          leaves[m],
          path.map((h) => Buffer.from(h, 'hex')),
          Buffer.from(root, 'hex'),
        ),
      ).toBe(false);
    }
  });

  it('random leaves: the reference verifier accepts our proofs', () => {
    const random = Array.from({ length: 129 }, () => randomBytes(32));
    const all = perfectNodesOf(random);
    for (const n of [1, 2, 64, 65, 128, 129]) {
      const root = hex(rangeHash({ start: 0, end: n }, all));
      for (let m = 0; m < n; m += 7) {
        const path = inclusionRanges(m, n).map((r) => hex(rangeHash(r, all)));
        expect(ref.verifyInclusionProof(m, n, hex(random[m]), path, root)).toBe(true);
      }
    }
  });
});

// store-independent: Merkle tree and proofs, pure functions
