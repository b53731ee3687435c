import { createPrivateKey, type KeyObject } from 'node:crypto';

/** Parses a PKCS#8 PEM Ed25519 private key; throws an error that never quotes the key. */
export function parseSigningKeyPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    // Environment variables often carry PEM with literal "\n" escapes.
    key = createPrivateKey({ key: pem.replace(/\\n/g, '\n'), format: 'pem' });
  } catch {
    throw new Error('is not a PKCS#8 PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('must be an Ed25519 key');
  return key;
}
