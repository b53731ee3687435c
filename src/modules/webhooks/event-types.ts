/** The closed catalogue of webhook event types (docs/guides/webhooks.md). */
export const EVENT_TYPES = [
  'consent.recorded',
  'export.succeeded',
  'export.failed',
  'channel.created',
  'channel.updated',
  'channel.archived',
  'api_key.created',
  'api_key.revoked',
  'scan.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether a destination's filter (["*"] or a list) takes events of `type`. */
export function filterMatches(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.includes('*') || eventTypes.includes(type);
}

const PSEUDONYM = /^psn_[0-9a-f]{64}$/;

/**
 * Defence in depth for payloads (they carry no secrets, and pseudonyms only masked): whatever an emitter
 * passes, members named like secrets are dropped and full pseudonyms are masked as on evidence reads.
 */
export function sanitizeEventData(value: unknown): unknown {
  if (typeof value === 'string') return PSEUDONYM.test(value) ? `psn_****${value.slice(-4)}` : value;
  if (Array.isArray(value)) return value.map(sanitizeEventData);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (/secret|password|token/i.test(key)) continue;
    out[key] = sanitizeEventData(member);
  }
  return out;
}
