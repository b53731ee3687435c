/** Why a webhook was refused; nothing in it should be trusted. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** A verified webhook payload. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  environment: 'test' | 'live';
  createdAt: string;
  data: T;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  if (found === undefined) return null;
  return Array.isArray(found) ? found.join(' ') : found;
}

const base64ToBytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** Length-independent comparison, so timing says nothing about how much of a signature matched. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * The Standard Webhooks check: HMAC-SHA256, keyed with the base64 part of `whsec_…`, over
 * `webhook-id.webhook-timestamp.body`, against each space-separated `v1,<base64>` entry of
 * `webhook-signature` (during a secret rotation the service sends one per valid secret, so either
 * the old or the new secret verifies). The timestamp must be within `toleranceSeconds` (default
 * 300) of now, which stops replays of old deliveries. Pass the raw body exactly as received (a
 * re-serialized JSON object would not match). Uses Web Crypto: Node 20+, browsers, edge runtimes.
 */
export async function verifyWebhook<T = Record<string, unknown>>(
  secret: string,
  headers: HeaderBag,
  body: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Promise<WebhookEvent<T>> {
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('the secret must start with whsec_');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new WebhookVerificationError('missing webhook-* headers');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not unix seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const key = await crypto.subtle.importKey(
    'raw',
    base64ToBytes(secret.slice('whsec_'.length)),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const expected = new Uint8Array(
    await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)),
  );
  const matches = signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    try {
      return equalBytes(base64ToBytes(value), expected);
    } catch {
      return false;
    }
  });
  if (!matches) throw new WebhookVerificationError('no signature matches the secret');
  return JSON.parse(text) as WebhookEvent<T>;
}
