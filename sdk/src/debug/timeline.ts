import type { Instance } from '../consent.ts';
import type { PendingPost } from '../types.ts';
import { consentModeEntries, consentModeText, outcomeOf } from './describe.ts';

export type EventKind = 'shown' | 'decided' | 'applied' | 'consent-mode' | 'error';

export interface TimelineEvent {
  at: number;
  kind: EventKind;
  text: string;
}

/**
 * The SDK's events as the panel hears of them, from the moment it opens: sdk.js keeps no log (every
 * visitor would pay its bytes), so the panel listens where the SDK already acts in the open (its
 * decisions' queue, its listeners, the dataLayer, the page's DOM, its console messages) and starts
 * with what already happened that the page still shows (the Consent Mode commands queued so far,
 * the banner or notice on the page, the decision in force). It listens for the instance's life:
 * closing the panel only hides it, and opening it again shows the whole timeline.
 */
export function watchSdk(i: Instance, onEvent: (event: TimelineEvent) => void): void {
  const push = (kind: EventKind, text: string) => onEvent({ at: Date.now(), kind, text });
  const w = window as unknown as { dataLayer?: unknown[] };
  let seen = 0;
  const consentMode = () => {
    const queued = w.dataLayer;
    for (const entry of consentModeEntries(queued, seen)) push('consent-mode', consentModeText(entry));
    seen = Array.isArray(queued) ? queued.length : 0;
  };
  consentMode();

  // A decision is recorded through the instance's queue: the panel sees each with its source.
  const sender = i.sender;
  const enqueue = sender.enqueue;
  let decided = false;
  sender.enqueue = (post: PendingPost) => {
    decided = true;
    const purposes = i.live?.config.purposes ?? null;
    push('decided', `${outcomeOf(post.body.decisions, purposes)} (source: ${post.body.source})`);
    return enqueue.call(sender, post);
  };
  // Applied without a new decision: the stored one at start, or none after a reset.
  const listener = (decisions: unknown) => {
    if (!decided)
      push('applied', decisions ? 'The stored decision applied' : 'No decision: the regime’s defaults apply');
    decided = false;
    consentMode();
  };
  i.listeners.push(listener);
  if (i.decisions) push('applied', 'A decision was in force when the panel opened');

  const ui = (el: Element): string | null => {
    if (el.matches('[data-consent-banner]'))
      return el.getAttribute('data-consent-view') === 'customize'
        ? 'The preferences shown'
        : 'The banner shown';
    if (el.matches('[data-consent-notice]')) return 'The notice shown';
    if (el.matches('[data-consent-choices]')) return 'The "Your Privacy Choices" button shown';
    return null;
  };
  for (const el of Array.from(document.body?.children ?? [])) {
    const text = ui(el);
    if (text) push('shown', `${text} (before the panel opened)`);
  }
  const observer = new MutationObserver((records) => {
    for (const record of records)
      for (const node of Array.from(record.addedNodes)) {
        const text = node instanceof Element && ui(node);
        if (text) push('shown', text);
      }
  });
  if (document.body) observer.observe(document.body, { childList: true });

  // The SDK says what went wrong in the console, each message starting "[consent-service]".
  const originals = { warn: console.warn, error: console.error };
  for (const level of ['warn', 'error'] as const) {
    console[level] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('[consent-service]'))
        push('error', args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' '));
      originals[level].apply(console, args);
    };
  }
}
