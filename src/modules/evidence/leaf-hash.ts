import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The ledger leaf hash of an evidence event (contract §14), which is also its `receipt.hash`:
 *
 *   hex(SHA-256(0x00 ‖ JCS(event)))
 *
 * where `event` is the event exactly as `GET /v1/evidence/:id` shows it but with the pseudonym
 * unmasked, and without its `receipt` and `ledger` members (dropped here if present, so callers may
 * pass a full event). JCS is RFC 8785 (the `canonicalize` package): members sorted by UTF-16 code
 * units, no whitespace, ECMAScript number formatting, so key order and jsonb round trips do not
 * change the bytes. The 0x00 prefix is RFC 9162's leaf domain separator (inner nodes use 0x01).
 */
export function evidenceLeafHash(event: Record<string, unknown>): string {
  return createHash('sha256').update(LEAF_PREFIX).update(evidenceCanonicalBytes(event)).digest('hex');
}

/** The canonical bytes a leaf hash covers: JCS of the event without `receipt` and `ledger`. */
export function evidenceCanonicalBytes(event: Record<string, unknown>): Buffer {
  const { receipt: _receipt, ledger: _ledger, ...hashed } = event;
  const text = canonicalize(hashed);
  if (text === undefined) throw new Error('evidence event cannot be canonicalized');
  return Buffer.from(text, 'utf8');
}

const LEAF_PREFIX = Buffer.from([0x00]);
