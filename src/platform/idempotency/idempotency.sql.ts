/**
 * SQL of the Idempotency-Key records (idempotency.tables.ts) that another statement composes: the
 * consent write stores a whole batch's records in its one statement.
 */

/** A record's columns, in the order a statement passes them as text. */
export const IDEMPOTENCY_KEY_COLUMNS = [
  'organization_id',
  'environment',
  'scope',
  'key',
  'fingerprint',
  'response_status',
  'response_headers',
  'response_body',
  'response_body_encrypted',
  'request_id',
  'created_at',
  'expires_at',
] as const;

/** SQL types of the columns not stored as text (the text values are cast back to them). */
const CASTS: Record<string, string> = {
  response_status: 'integer',
  response_headers: 'jsonb',
  response_body_encrypted: 'boolean',
  created_at: 'timestamptz',
  expires_at: 'timestamptz',
};

const columns = IDEMPOTENCY_KEY_COLUMNS.join(', ');
const castColumns = IDEMPOTENCY_KEY_COLUMNS.map((c) => (CASTS[c] ? `${c}::${CASTS[c]}` : c)).join(', ');

/**
 * The CTE `stored_keys`: inserts the records of `input` (a relation with IDEMPOTENCY_KEY_COLUMNS,
 * as text) whose key is free, and returns the keys it stored. A key already held is not stored,
 * and the statement finds out from the missing row instead of a conflict error.
 */
export function storedKeysCte(input: string): string {
  return `-- A free key is stored. A key already held (by a live record, or an expired one the purge has not
-- reached yet) is not, and neither is one a concurrent batch is inserting: this waits for that
-- transaction, then finds the key taken. No SELECT before: the conflict is the check, and DO NOTHING
-- neither locks nor writes the row a replay finds (the idempotency layer frees an expired key).
stored_keys AS (
  INSERT INTO idempotency_keys (${columns})
  SELECT ${castColumns} FROM ${input}
  ON CONFLICT (organization_id, scope, key) DO NOTHING
  RETURNING organization_id, scope, key
)`;
}
