import type { Decisions } from '../types.ts';

/** What a redeemed handoff gives: the choice and when the visitor made it (ms). */
export interface Handed {
  decisions: Decisions;
  configVersion: number;
  recordedAt: number;
}

/**
 * Redeems a handoff token that came in the address's fragment (`POST …/handoffs/redeem`) for
 * `subjectId`, this visitor's id here: the choice made on a sibling domain, or null when the token
 * cannot be redeemed (the service's one 404 for a used, expired or foreign one) or the service is
 * out of reach: the visitor is then asked as on any first visit. Through the first-party path the
 * answer sets the decision cookie (docs/guides/keep-the-choice.md).
 */
export async function redeem(site: string, token: string, subjectId: string): Promise<Handed | null> {
  try {
    const res = await fetch(`${site}/handoffs/redeem`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, subjectId }),
      credentials: 'same-origin',
    });
    if (!res.ok) return null;
    const { data } = await res.json();
    const recordedAt = Date.parse(data.recordedAt);
    if (!data.decisions || typeof data.configVersion !== 'number' || Number.isNaN(recordedAt)) return null;
    return { decisions: data.decisions, configVersion: data.configVersion, recordedAt };
  } catch {
    return null;
  }
}
