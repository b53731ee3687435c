import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The ledger leaf hash of an evidence event (docs/decisions/ledger.md), which is also its `receipt.hash`:
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
  return leafHashOf(evidenceCanonicalBytes(event));
}

/** The leaf hash of canonical bytes already made (evidenceCanonicalBytes). */
export function leafHashOf(canonical: Buffer): string {
  return createHash('sha256').update(LEAF_PREFIX).update(canonical).digest('hex');
}

/** The canonical bytes a leaf hash covers: JCS of the event without `receipt` and `ledger`. */
export function evidenceCanonicalBytes(event: Record<string, unknown>): Buffer {
  return Buffer.from(jcsObject(event, UNHASHED), 'utf8');
}

const UNHASHED = new Set(['receipt', 'ledger']);
const NONE = new Set<string>();
/** A UTF-16 surrogate without its pair: JCS (and the `canonicalize` package) refuse such strings. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Any surrogate: a quick first test, since nearly no string holds one. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * RFC 8785 for the plain JSON values an event is made of, byte for byte what `canonicalize` writes
 * (and its errors), without its per-object bookkeeping: every consent write hashes its event, and
 * `canonicalize` was its largest single cost (3.7 % of the write path's CPU profile). Anything
 * else (arrays, objects with toJSON, functions) is left to `canonicalize` itself.
 */
function jcs(value: unknown): string {
  switch (typeof value) {
    case 'string':
      if (SURROGATE.test(value) && LONE_SURROGATE.test(value))
        throw new Error('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed');
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') break;
      return jcsObject(value as Record<string, unknown>, NONE);
  }
  return canonicalize(value) as string;
}

/** Member names repeat from event to event (the same twenty or so): each is written once. */
const KEYS = new Map<string, string>();
const MAX_KEYS = 1000;

function jcsKey(key: string): string {
  let written = KEYS.get(key);
  if (written === undefined) {
    written = jcs(key);
    if (KEYS.size < MAX_KEYS) KEYS.set(key, written);
  }
  return written;
}

function jcsObject(object: Record<string, unknown>, skipped: Set<string>): string {
  let out = '{';
  for (const key of Object.keys(object).sort()) {
    const value = object[key];
    if (value === undefined || typeof value === 'symbol' || skipped.has(key)) continue;
    out += `${out.length === 1 ? '' : ','}${jcsKey(key)}:${jcs(value)}`;
  }
  return `${out}}`;
}

const LEAF_PREFIX = Buffer.from([0x00]);
