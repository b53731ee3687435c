import { type NodeHashes, type NodeRef, nodeKey, perfectNodesOf } from './merkle.ts';

/**
 * Perfect nodes below BLOCK_LEVELS are not stored: each lies inside one aligned block of
 * BLOCK_SIZE leaves and is folded from that block's leaves (one short range read, at most 15
 * hashes). Storing them would add a row for every two leaves appended, most of the nodes; the
 * stored ones (level ≥ BLOCK_LEVELS) are one per BLOCK_SIZE leaves.
 */
export const BLOCK_LEVELS = 4;
export const BLOCK_SIZE = 2 ** BLOCK_LEVELS;

export const isStoredNode = (ref: NodeRef) => ref.level >= BLOCK_LEVELS;

/** Where the named nodes come from: stored nodes by key, the others folded from leaf blocks (first leaf of each). */
export function sourcesOf(refs: NodeRef[]): { stored: NodeRef[]; blocks: number[] } {
  const stored = refs.filter(isStoredNode);
  const blocks = new Set<number>();
  for (const ref of refs) {
    if (!isStoredNode(ref)) blocks.add(Math.floor((ref.index * 2 ** ref.level) / BLOCK_SIZE) * BLOCK_SIZE);
  }
  return { stored, blocks: [...blocks] };
}

/**
 * Node hashes from what `sourcesOf` named: the stored nodes as read, and every perfect node of the
 * leaf blocks read (a block at the tree's right edge may be partial; its complete pairs still fold).
 */
export function nodesFromSources(
  stored: Array<NodeRef & { hash: Buffer }>,
  leaves: Array<{ index: number; hash: Buffer }>,
): NodeHashes {
  const nodes: NodeHashes = new Map(stored.map((n) => [nodeKey(n), n.hash]));
  const blocks = new Map<number, Array<{ index: number; hash: Buffer }>>();
  for (const leaf of leaves) {
    const start = leaf.index - (leaf.index % BLOCK_SIZE);
    blocks.set(start, [...(blocks.get(start) ?? []), leaf]);
  }
  for (const [start, block] of blocks) {
    block.sort((a, b) => a.index - b.index);
    // A log has no gaps, so a block's leaves run from its start; stop at a missing one regardless.
    const run = block.filter((leaf, i) => leaf.index === start + i).map((leaf) => leaf.hash);
    for (const [key, hash] of perfectNodesOf(run, start)) nodes.set(key, hash);
  }
  return nodes;
}
