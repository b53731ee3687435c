import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { parseSigningKeyPem } from '../../platform/signing-key.ts';

// Parsed in platform so config.ts can check the setting without importing this module.
export { parseSigningKeyPem };

/**
 * Tree head signatures: Ed25519 over the UTF-8 of
 *
 *   consent-service tree head v1\n<logId>\n<treeSize>\n<rootHash hex>\n<timestamp>
 *
 * with treeSize in decimal without leading zeros, rootHash as 64 lowercase hex characters, and
 * timestamp exactly as the tree head shows it: RFC 3339 UTC at whole seconds (`2026-11-21T10:00:00Z`).
 * No trailing newline. This file has no database or service dependency: the offline verifier uses it.
 */

export interface TreeHead {
  logId: string;
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  /** Base64 of the 64-byte Ed25519 signature. */
  signature: string;
}

export function treeHeadMessage(head: Omit<TreeHead, 'keyId' | 'signature'>): Buffer {
  return Buffer.from(
    `consent-service tree head v1\n${head.logId}\n${head.treeSize}\n${head.rootHash}\n${head.timestamp}`,
    'utf8',
  );
}

export interface LedgerSigner {
  keyId: string;
  /** The raw 32-byte Ed25519 public key. */
  publicKey: Buffer;
  sign(message: Buffer): Buffer;
}

/** A key's id: base64url of the first 8 bytes of SHA-256 of its raw public key (11 characters). */
export function ledgerKeyId(rawPublicKey: Buffer): string {
  return createHash('sha256').update(rawPublicKey).digest().subarray(0, 8).toString('base64url');
}

/** The raw 32 bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
}

export function signerFromPrivateKey(privateKey: KeyObject): LedgerSigner {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the ledger signing key must be Ed25519');
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  return {
    keyId: ledgerKeyId(publicKey),
    publicKey,
    sign: (message) => sign(null, message, privateKey),
  };
}

/** The PKCS#8 DER prefix of an Ed25519 private key (RFC 8410), followed by its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 private key from a 32-byte seed (the database-held generated key). */
export function privateKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** Checks a tree head's signature with a raw 32-byte Ed25519 public key. */
export function verifyTreeHead(head: TreeHead, rawKey: Buffer): boolean {
  if (rawKey.length !== 32) return false;
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: rawKey.toString('base64url') },
    format: 'jwk',
  });
  const signature = Buffer.from(head.signature, 'base64');
  if (signature.length !== 64) return false;
  return verify(null, treeHeadMessage(head), publicKey, signature);
}
