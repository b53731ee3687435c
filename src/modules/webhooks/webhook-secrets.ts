import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.ts';
import { serviceSecret } from '../../platform/db/service-secrets.ts';
import type { Store } from '../../platform/db/store.ts';
import type { SecretBox } from './webhooks.service.ts';

export type { SecretBox };

/** `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries expect. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the bytes its base64 part stands for. */
function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/**
 * The `webhook-signature` header value (Standard Webhooks): `v1,<base64 HMAC-SHA256 of
 * "{id}.{timestamp}.{body}">` per secret, space-separated (several during a rotation grace).
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', secretKeyBytes(secret)).update(`${id}.${timestamp}.${body}`);
      return `v1,${mac.digest('base64')}`;
    })
    .join(' ');
}

/** AES-256-GCM; sealed form `v1.<iv>.<tag>.<ciphertext>` (base64url), so the scheme can change later. */
export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined)
        throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

export const KEY_FILE_NAME = 'webhook-secret.key';

/**
 * Where the key that seals destination secrets comes from (docs/decisions/webhooks.md):
 * 1. WEBHOOK_SECRET_KEY (base64 of 32 bytes), when set: the production setting, kept outside the database.
 * 2. The embedded store on disk: a key file generated once beside the data (DATA_DIR), so a copy of
 *    the database files alone does not reveal the secrets.
 * 3. Otherwise (PostgreSQL without the setting, or an in-memory store): a key kept in the database's
 *    service_secrets table. That protects against little (it sits beside the ciphertext): `warn` is told.
 */
export async function resolveSecretKey(deps: {
  config: Pick<Config, 'webhookSecretKey' | 'dataDir'>;
  store: Store;
  warn: (message: string) => void;
}): Promise<Buffer> {
  const { config, store } = deps;
  if (config.webhookSecretKey) return config.webhookSecretKey;
  if (store.kind === 'embedded' && store.dataDir) return keyFile(path.join(config.dataDir, KEY_FILE_NAME));
  if (store.kind === 'postgres') {
    deps.warn(
      'WEBHOOK_SECRET_KEY is not set: webhook secrets are encrypted with a key stored in the same database; set it to a base64 32-byte key kept elsewhere',
    );
  }
  return serviceSecret(store, 'webhook-secret-key');
}

/** Reads the key file, creating it (mode 0600) once; a concurrent creator's file wins. */
function keyFile(file: string): Buffer {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64 32-byte key`);
  return key;
}
