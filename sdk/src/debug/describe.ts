import type { Decisions, Purpose, StoredConsent } from '../types.ts';

/**
 * What the developer panel says, in words, of the SDK's state: pure functions of what the SDK
 * keeps (the decision cookie, the config) and of what the page holds (blocked elements, the
 * dataLayer), so the panel only draws them.
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

export interface BlockedElement {
  el: Element;
  /** e.g. `script /analytics.js`, `inline script "window.ran.push(…"`, `iframe /ad.html`. */
  what: string;
  purposes: string;
  ran: boolean;
}

const shorten = (text: string, max = 48) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * The page's elements under consent (sdk/src/blocking.ts): scripts `type="text/plain"` with
 * `data-consent-purpose` until they run (then a real script marked `data-consent-activated`), and
 * iframes whose `data-src` waits for their purposes (marked the same once loaded).
 */
export function blockedElements(root: ParentNode): BlockedElement[] {
  const out: BlockedElement[] = [];
  for (const el of Array.from(
    root.querySelectorAll('script[data-consent-purpose], iframe[data-consent-purpose]'),
  )) {
    const ran = el.hasAttribute('data-consent-activated');
    const purposes = el.getAttribute('data-consent-purpose') || '';
    if (el.tagName === 'SCRIPT') {
      // A script under consent that is neither blocked nor activated is not the SDK's to run.
      if (!ran && el.getAttribute('type') !== 'text/plain') continue;
      const src = el.getAttribute('src');
      out.push({
        el,
        what: src ? `script ${src}` : `inline script "${shorten(el.textContent || '')}"`,
        purposes,
        ran,
      });
    } else {
      const src = el.getAttribute('data-src') || el.getAttribute('src') || '';
      out.push({ el, what: `iframe ${src}`, purposes, ran });
    }
  }
  return out;
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
