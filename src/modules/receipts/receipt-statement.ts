import canonicalize from 'canonicalize';

/**
 * What a receipt's `signature` signs (docs/receipts.md): Ed25519 with a ledger key over
 * the UTF-8 of `consent-service receipt v1\n` followed by the JCS (RFC 8785) of the receipt without
 * its `proof` and `signature` members. The prefix keeps these signatures apart from tree heads.
 *
 * Why a signature at all: the leaf hash covers the event with its pseudonym, which a receipt must not
 * show, so no one can recompute the leaf hash from a receipt. The signature is the service's word that
 * this leaf hash is the event whose decisions the receipt states; the inclusion proof then shows that
 * leaf is in the signed log. No database or service dependency: the CLI and tests use this file.
 */
export const RECEIPT_STATEMENT_PREFIX = 'consent-service receipt v1\n';

export function receiptStatement(receipt: Record<string, unknown>): Buffer {
  const { proof: _proof, signature: _signature, ...stated } = receipt;
  const text = canonicalize(stated);
  if (text === undefined) throw new Error('receipt cannot be canonicalized');
  return Buffer.from(RECEIPT_STATEMENT_PREFIX + text, 'utf8');
}
