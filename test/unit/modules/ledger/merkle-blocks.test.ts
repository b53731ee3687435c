import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  consistencyRanges,
  frontierOf,
  hashLeaf,
  inclusionRanges,
  type NodeHashes,
  type NodeRef,
  nodeKey,
  nodesFor,
  rangeHash,
  rangeNodes,
} from '../../../../src/modules/ledger/merkle.ts';
import {
  BLOCK_LEVELS,
  BLOCK_SIZE,
  isStoredNode,
  nodesFromSources,
  sourcesOf,
} from '../../../../src/modules/ledger/merkle-blocks.ts';
import * as ref from '../../../ledger/rfc9162.ts';

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => hashLeaf(Buffer.from(`event ${i}`)));
const hex = (b: Buffer) => b.toString('hex');

describe('merkle blocks (checked against the RFC 9162 reference in test/ledger/rfc9162.ts)', () => {
  it('storing leaves and the nodes of level ≥ BLOCK_LEVELS is enough: the rest folds from leaf blocks', () => {
    const many = leavesOf(300);
    const refMany = many.map(hex);
    for (const batch of [1, 5, 16, 33, 300]) {
      // What the database keeps: every leaf, and the stored nodes.
      const storedLeaves: Array<{ index: number; hash: Buffer }> = [];
      const storedNodes: NodeHashes = new Map();
      const read = (refs: NodeRef[]) => {
        const { stored, blocks } = sourcesOf(refs);
        const nodes = stored.flatMap((r) => {
          const hash = storedNodes.get(nodeKey(r));
          return hash ? [{ ...r, hash }] : [];
        });
        const inBlocks = storedLeaves.filter((l) => blocks.includes(l.index - (l.index % BLOCK_SIZE)));
        return nodesFromSources(nodes, inBlocks);
      };
      let size = 0;
      while (size < many.length) {
        const next = many.slice(size, size + batch);
        for (const n of appendLeaves(size, read(frontierOf(size)), next)) {
          if (n.level === 0) storedLeaves.push({ index: n.index, hash: n.hash });
          else if (isStoredNode(n)) storedNodes.set(nodeKey(n), n.hash);
        }
        size += next.length;
        const whole = { start: 0, end: size };
        expect(hex(rangeHash(whole, read(rangeNodes(whole))))).toBe(ref.mth(refMany.slice(0, size)));
      }
      expect([...storedNodes.keys()].every((k) => Number(k.split(':')[0]) >= BLOCK_LEVELS)).toBe(true);
      for (const m of [0, 15, 16, 17, 255, 256, 299]) {
        const ranges = inclusionRanges(m, size);
        const path = ranges.map((r) => hex(rangeHash(r, read(nodesFor(ranges)))));
        expect(path).toEqual(ref.path(m, refMany));
      }
      for (const m of [1, 15, 16, 17, 100, 299]) {
        const ranges = consistencyRanges(m, size);
        const proof = ranges.map((r) => hex(rangeHash(r, read(nodesFor(ranges)))));
        expect(proof).toEqual(ref.proof(m, refMany));
      }
    }
  });
});

// store-independent: Merkle blocks, pure functions
