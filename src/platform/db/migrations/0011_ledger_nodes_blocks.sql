-- The ledger now stores only perfect subtrees of level 4 and above (merkle-blocks.ts): a
-- smaller one is folded from its aligned block of 16 leaves when a proof or a tree head needs it,
-- which makes appends write a node row per 16 leaves instead of one per leaf. The rows below level
-- 4 are never read again. Every sealed log keeps verifying: its leaf hashes and its nodes of level
-- 4 and above are untouched, and the hashes folded from the leaves are the ones deleted here.
DELETE FROM ledger_nodes WHERE level < 4;
