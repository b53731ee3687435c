import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { randomBytesPooled } from '../ids.ts';

/**
 * A stored response can hold a secret (POST /v1/api-keys returns the new key's secret, and a
 * replay must return it again or the retry is useless). The database must never hold a usable
 * secret (only hashes of API keys), so such bodies are sealed with AES-256-GCM under a key derived from the
 * caller's own API key secret, of which the database holds only a hash: only a retry that
 * presents the same API key can open it.
 */
function sealingKey(callerSecret: string, idempotencyKey: string): Buffer {
  return createHmac('sha256', callerSecret).update(`idempotency-response\n${idempotencyKey}`).digest();
}

export function sealBody(body: string, callerSecret: string, idempotencyKey: string): string {
  const iv = randomBytesPooled(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(callerSecret, idempotencyKey), iv);
  const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64'),
    cipher.getAuthTag().toString('base64'),
    sealed.toString('base64'),
  ].join('.');
}

/** The body, or null when it cannot be opened with this secret (which a valid scope rules out). */
export function openBody(stored: string, callerSecret: string, idempotencyKey: string): string | null {
  const [version, iv, tag, sealed] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || sealed === undefined) return null;
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      sealingKey(callerSecret, idempotencyKey),
      Buffer.from(iv, 'base64'),
    );
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
