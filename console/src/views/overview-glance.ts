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
export function headlineFigures(
  totals: Counts,
  from: string,
  to: string,
  purposes: { key: string; name: string; required: boolean }[] = [],
): HTMLElement {
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
    optInFigures(totals, purposes, tile),
  );
}

/**
 * Opt-in per optional purpose, as cards beside the outcome rates (required purposes are always
 * granted, so their 100% says nothing): the share of the decisions about it that granted it.
 */
function optInFigures(
  totals: Counts,
  purposes: { key: string; name: string; required: boolean }[],
  tile: (label: string, value: string, detail: string) => HTMLElement,
): HTMLElement | null {
  const required = new Set(purposes.filter((p) => p.required).map((p) => p.key));
  const names = new Map(purposes.map((p) => [p.key, p.name]));
  const keys = Object.keys(totals.purposes)
    .filter((k) => !required.has(k))
    .sort();
  if (keys.length === 0) return null;
  return h(
    'div',
    { class: 'opt-in-figures' },
    h('h3', { id: 'opt-in-title' }, 'Opt-in per purpose'),
    h(
      'ul',
      { class: 'figures', 'aria-labelledby': 'opt-in-title' },
      ...keys.map((k) => {
        const c = totals.purposes[k];
        const asked = c.granted + c.denied;
        return tile(
          `Opt-in: ${names.get(k) ?? k}`,
          percent(c.granted, asked),
          `${count(c.granted)} of ${count(asked)}`,
        );
      }),
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
