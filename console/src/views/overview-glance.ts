import { answer, api } from '../api.ts';
import { isoDay } from '../date-field.ts';
import { h } from '../dom.ts';
import type { Counts } from './overview.ts';

const DAY = 86_400_000;

export const count = (n: number) => n.toLocaleString('en-US');
export const percent = (part: number, whole: number) =>
  whole ? `${Math.round((100 * part) / whole)}%` : '—';

/**
 * What a privacy manager asks first, before any chart: how many decisions, and how they split
 * between accept all, reject all and a custom choice, over the range shown.
 */
export function headlineFigures(totals: Counts, from: string, to: string): HTMLElement {
  const tile = (label: string, value: string, detail: string) =>
    h(
      'li',
      {},
      h('span', { class: 'figure' }, value),
      h('span', { class: 'figure-label' }, label),
      h('small', {}, detail),
    );
  const of = (n: number) => `${count(n)} of ${count(totals.decisions)}`;
  return h(
    'section',
    { class: 'card headline-card', 'aria-labelledby': 'headline-title' },
    h('h2', { id: 'headline-title' }, `At a glance, ${from} to ${to}`),
    h(
      'ul',
      { class: 'figures' },
      tile('Decisions', count(totals.decisions), `${count(totals.impressions)} banners shown`),
      tile('Accept all', percent(totals.acceptAll, totals.decisions), of(totals.acceptAll)),
      tile('Reject all', percent(totals.rejectAll, totals.decisions), of(totals.rejectAll)),
      tile('Custom', percent(totals.custom, totals.decisions), of(totals.custom)),
    ),
  );
}

/** A channel's first day with data, once found (none found is asked again: data may arrive). */
const firstDays = new Map<string, string>();

/**
 * The default range: from the channel's first day with an impression or a decision (within the
 * API's longest range, 366 days) to today, so the charts open on data instead of a month of empty
 * axis; the last 30 days when the channel has none yet. One daily query, kept per channel.
 */
export async function defaultRange(channelId: string) {
  // One reading of the clock: three would mix two days (or years) when midnight falls between them.
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const to = isoDay(today);
  if (!firstDays.has(channelId)) {
    const { data } = await answer(
      api.GET('/v1/analytics/consent', {
        params: { query: { channelId, from: isoDay(today - 365 * DAY), to, interval: 'day' } },
      }),
    );
    const first = data.find((r) => r.impressions > 0 || r.decisions > 0)?.period;
    if (first) firstDays.set(channelId, first);
  }
  return { from: firstDays.get(channelId) ?? isoDay(today - 29 * DAY), to };
}
