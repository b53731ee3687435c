import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * What makes two requests "the same" for an Idempotency-Key: method, request target (path and
 * query, as sent) and the parsed body in canonical form. Whitespace and member order in the body
 * do not matter; any change of meaning does.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** A signed 64-bit advisory lock id for one key of one scope (pg_try_advisory_xact_lock takes int8). */
export function advisoryLockId(organizationId: string, scope: string, key: string): string {
  const digest = createHash('sha256').update(`idempotency\n${organizationId}\n${scope}\n${key}`).digest();
  return digest.readBigInt64BE(0).toString();
}
