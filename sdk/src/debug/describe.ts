import type { Decisions, Purpose, StoredConsent } from '../types.ts';

/**
 * What the developer panel says, in words, of the SDK's state: pure functions of what the SDK
 * keeps (the decision cookie, the config) and of the page's dataLayer, with no DOM, so the panel
 * only draws them (the blocked elements are elements.ts's).
 */

/** How a stored decision reads: every optional purpose granted, every one denied, or some of each. */
export function outcomeOf(decisions: Decisions | undefined, purposes: Purpose[] | null): string {
  if (!decisions) return 'No choice stored';
  const optional = purposes ? purposes.filter((p) => !p.required).map((p) => p.key) : Object.keys(decisions);
  const states = optional.map((key) => decisions[key]);
  if (states.length > 0 && states.every((s) => s === 'granted')) return 'Accepted all';
  if (states.every((s) => s !== 'granted')) return 'Rejected all';
  return 'Custom';
}

export interface StoredSummary {
  outcome: string;
  /** Each purpose of the decision with its state, in the config's order when it is known. */
  purposes: Array<[string, string]>;
  /** When it was made, as an ISO 8601 instant; null: no decision. */
  when: string | null;
  configVersion: number | null;
  subjectId: string | null;
  /** 1: the SDK recorded it from the browser's Global Privacy Control signal, not a click. */
  byGpc: boolean;
}

export function storedSummary(stored: StoredConsent | null, purposes: Purpose[] | null): StoredSummary {
  const decisions = stored?.d;
  const keys = decisions
    ? [
        ...(purposes ?? []).map((p) => p.key).filter((key) => key in decisions),
        ...Object.keys(decisions).filter((key) => !purposes?.some((p) => p.key === key)),
      ]
    : [];
  return {
    outcome: outcomeOf(decisions, purposes),
    purposes: keys.map((key) => [key, (decisions as Decisions)[key]]),
    when: decisions && typeof stored?.t === 'number' ? new Date(stored.t).toISOString() : null,
    configVersion: decisions && typeof stored?.v === 'number' ? stored.v : null,
    subjectId: stored?.s ?? null,
    byGpc: stored?.g === 1,
  };
}

/**
 * The Consent Mode commands on the page's dataLayer from `from` on (the SDK queues `consent`
 * `default` and `update` there, or calls gtag, which does): each as `[command, granted signals]`.
 */
export function consentModeEntries(dataLayer: unknown, from: number): Array<[string, string[]]> {
  if (!Array.isArray(dataLayer)) return [];
  const out: Array<[string, string[]]> = [];
  for (const entry of dataLayer.slice(from) as Array<ArrayLike<unknown> | null>) {
    if (!entry || typeof entry !== 'object' || entry[0] !== 'consent') continue;
    const state = (entry[2] || {}) as Record<string, string>;
    out.push([String(entry[1]), Object.keys(state).filter((signal) => state[signal] === 'granted')]);
  }
  return out;
}

/** A Consent Mode command as a line of the timeline. */
export const consentModeText = ([command, granted]: [string, string[]]) =>
  `Consent Mode ${command}: ${granted.length ? `granted ${granted.join(', ')}; the rest denied` : 'every signal denied'}`;

/** A region code the service accepts as declared (sdk/src/declared-region.ts), upper-cased; null: not one. */
export function regionCode(input: string): string | null {
  const code = input.trim().toUpperCase();
  return /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(code) ? code : null;
}
