import { decisionOutcome } from '../../../src/shared/decision-outcome.ts';
import { answer, api } from '../api.ts';
import { h } from '../dom.ts';

/** A channel's purposes as Evidence shows decisions: each key's name, and which are required. */
export interface ChannelPurposes {
  names: Map<string, string>;
  required: Set<string>;
}

/**
 * A decision as a coloured mark that also says it in words (granted ✓ / denied ✕): colour alone
 * tells nothing to a reader who cannot see it, or prints in grey.
 */
function decisionMark(key: string, value: string, name: string | undefined): HTMLElement {
  const granted = value === 'granted';
  return h(
    'li',
    { class: `decision decision-${granted ? 'granted' : 'denied'}` },
    // The purpose's name, as the banner shows it, with its key for a reader of the API.
    name && name !== key ? h('span', { class: 'purpose-name' }, `${name} `) : null,
    h('code', {}, key),
    ' ',
    h(
      'span',
      { class: 'decision-value' },
      h('span', { 'aria-hidden': 'true' }, granted ? '✓ ' : '✕ '),
      value,
    ),
  );
}

/** An event's decisions, purpose by purpose, for the table and the event page alike. */
export function decisionList(decisions: Record<string, string>, purposes?: ChannelPurposes): HTMLElement {
  return h(
    'ul',
    { class: 'decisions' },
    ...Object.entries(decisions).map(([k, v]) => decisionMark(k, v, purposes?.names.get(k))),
  );
}

const OUTCOME_WORDS = { accept_all: 'Accept all', reject_all: 'Reject all', custom: 'Custom' } as const;

/**
 * What the decision amounts to, as the analytics count it (the rule the service stores, shared):
 * over the purposes the event decided, which are the notice's (the service records every purpose
 * of the notice, a missing one as denied), a required one not counting. '—' when the channel's
 * purposes could not be read, since which are required is then unknown.
 */
export function outcomeWords(decisions: Record<string, string>, purposes?: ChannelPurposes): string {
  if (!purposes) return '—';
  const decided = Object.keys(decisions).map((key) => ({ key, required: purposes.required.has(key) }));
  return OUTCOME_WORDS[decisionOutcome(decided, decisions)];
}

/**
 * Each channel's purposes (names, required ones), one call per channel; a channel whose purposes
 * cannot be read is absent, and its decisions show their keys alone.
 */
export async function channelPurposes(channelIds: Iterable<string>): Promise<Map<string, ChannelPurposes>> {
  const ids = [...new Set(channelIds)];
  const lists = await Promise.all(
    ids.map((id) =>
      answer(api.GET('/v1/channels/{id}/purposes', { params: { path: { id }, query: { limit: 100 } } })).then(
        (r): ChannelPurposes => ({
          names: new Map(r.data.map((p) => [p.key, p.name])),
          required: new Set(r.data.filter((p) => p.required).map((p) => p.key)),
        }),
        () => null,
      ),
    ),
  );
  return new Map(ids.flatMap((id, i) => (lists[i] ? [[id, lists[i]] as const] : [])));
}
