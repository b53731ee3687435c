import {
  bigint,
  index,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { bytea } from '../../platform/db/service-secrets.tables.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const int8 = (name: string) => bigint(name, { mode: 'number' });

/**
 * One append-only Merkle log per organization and environment. `tree_size` counts
 * the leaves appended; `signed_size` the leaves covered by the newest signed tree head. They differ
 * only between the two steps of a seal (or after a crash between them), which the next seal ends.
 */
export const ledgerLogs = pgTable(
  'ledger_logs',
  {
    organizationId: text('organization_id').notNull(),
    id: text('id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    treeSize: int8('tree_size').notNull(),
    signedSize: int8('signed_size').notNull(),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('ledger_logs_scope_key').on(t.organizationId, t.environment),
  ],
);

/** Leaf `leaf_index` of a log is evidence event `event_id`; its hash is the event's receipt hash. */
export const ledgerLeaves = pgTable(
  'ledger_leaves',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    logId: text('log_id').notNull(),
    leafIndex: int8('leaf_index').notNull(),
    eventId: text('event_id').notNull(),
    leafHash: bytea('leaf_hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.logId, t.leafIndex] }),
    // An event is a leaf once: a repeated seal of the same event fails instead of forking the log.
    uniqueIndex('ledger_leaves_event_key').on(t.organizationId, t.eventId),
  ],
);

/**
 * Hashes of the perfect subtrees of level ≥ BLOCK_LEVELS (merkle-blocks.ts): 2^level leaves starting at
 * node_index·2^level, written once when their last leaf is appended and never changed. The smaller
 * ones are folded from at most 16 leaves when needed (migration `ledger_nodes_blocks` dropped those
 * stored before). Any tree head's root and any proof is a fold of O(log n) of these and of leaves.
 */
export const ledgerNodes = pgTable(
  'ledger_nodes',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    logId: text('log_id').notNull(),
    level: smallint('level').notNull(),
    nodeIndex: int8('node_index').notNull(),
    hash: bytea('hash').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.logId, t.level, t.nodeIndex] })],
);

/** Signed tree heads, one per seal that grew the log. `timestamp` is at whole seconds (see ledger-signing.ts). */
export const ledgerTreeHeads = pgTable(
  'ledger_tree_heads',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    logId: text('log_id').notNull(),
    treeSize: int8('tree_size').notNull(),
    rootHash: bytea('root_hash').notNull(),
    timestamp: at('timestamp').notNull(),
    keyId: text('key_id').notNull(),
    signature: bytea('signature').notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.logId, t.treeSize] })],
);

/**
 * Evidence events waiting to be sealed, filled by a trigger on evidence_events (migrations
 * `ledger_pending_trigger`, then `ledger_pending_per_statement`: once per INSERT statement) so
 * that every insert path is covered and the sealer reads only new
 * work instead of anti-joining the whole evidence table. The sealer deletes what it appends, in
 * the same transaction.
 */
export const ledgerPending = pgTable(
  'ledger_pending',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    eventId: text('event_id').notNull(),
    recordedAt: at('recorded_at').notNull(),
    leafHash: text('leaf_hash').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.eventId] }),
    index('ledger_pending_order_idx').on(t.organizationId, t.environment, t.recordedAt, t.eventId),
  ],
);

/**
 * Every public key that has signed (or may sign) tree heads. Rows are never deleted, so tree heads
 * signed before a key change stay verifiable. Private keys are not here (see ledger-keys.ts).
 */
export const ledgerKeys = pgTable('ledger_keys', {
  keyId: text('key_id').primaryKey(),
  algorithm: text('algorithm').notNull(),
  publicKey: bytea('public_key').notNull(),
  createdAt: at('created_at').notNull(),
});

/**
 * A log whose database no longer extends a tree head this service signed (docs/decisions/ledger.md,
 * "Forks"): found by the sealer, which then signs nothing more for the log until an operator
 * accepts the fork (`consent-service ledger accept-fork`). The head is the newest one a sealer
 * remembered signing; the database's side is the log as the sealer found it.
 */
export const ledgerForks = pgTable(
  'ledger_forks',
  {
    organizationId: text('organization_id').notNull(),
    environment: text('environment', { enum: ['test', 'live'] }).notNull(),
    /** The signed head's log, size, root and time. */
    logId: text('log_id').notNull(),
    signedTreeSize: int8('signed_tree_size').notNull(),
    signedRootHash: bytea('signed_root_hash').notNull(),
    signedAt: at('signed_at').notNull(),
    /** The log the database has for the scope (another id, or none, when the log itself was lost). */
    databaseLogId: text('database_log_id'),
    databaseTreeSize: int8('database_tree_size').notNull(),
    detectedAt: at('detected_at').notNull(),
    acceptedAt: at('accepted_at'),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.logId, t.signedTreeSize] })],
);

export type LedgerLogRow = typeof ledgerLogs.$inferSelect;
export type LedgerForkRow = typeof ledgerForks.$inferSelect;
export type LedgerTreeHeadRow = typeof ledgerTreeHeads.$inferSelect;
