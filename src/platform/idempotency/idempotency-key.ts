import { AppError } from '../http/errors.ts';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// Printable ASCII (space to tilde), as the IETF httpapi idempotency draft and Stripe allow.
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The Idempotency-Key header value (README "Idempotency and rate limits"): either bare, or an RFC 8941
 * structured-field string (`"abc"`, with `\"` and `\\` escapes), which the draft specifies. Returns the key
 * itself (unquoted), 1-255 printable ASCII characters, or throws 400 invalid_idempotency_key.
 */
export function parseIdempotencyKey(header: string | string[]): string {
  // Node joins a repeated unknown header with ", "; two keys on one request are refused outright.
  if (Array.isArray(header)) throw invalid('Send one Idempotency-Key header.');
  const key = header.length >= 2 && header.startsWith('"') ? unquote(header) : header;
  if (key.length === 0) throw invalid('The Idempotency-Key is empty.');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    throw invalid(`The Idempotency-Key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
  if (!PRINTABLE.test(key)) throw invalid('The Idempotency-Key must be printable ASCII.');
  return key;
}

/** An RFC 8941 §3.3.3 sf-string; anything else that starts with a quote is malformed. */
function unquote(header: string): string {
  let out = '';
  for (let i = 1; i < header.length; i++) {
    const c = header[i];
    if (c === '\\') {
      const next = header[++i];
      if (next !== '"' && next !== '\\') throw invalid('The quoted Idempotency-Key has a bad escape.');
      out += next;
    } else if (c === '"') {
      if (i !== header.length - 1) throw invalid('The quoted Idempotency-Key has text after its end.');
      return out;
    } else {
      out += c;
    }
  }
  throw invalid('The quoted Idempotency-Key is not closed.');
}

function invalid(detail: string) {
  return new AppError(
    'invalid_idempotency_key',
    `${detail} Use 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or as a quoted string.`,
  );
}
