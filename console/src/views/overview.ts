import { ApiError, answer, api, type GetQuery, type Schemas } from '../api.ts';
import { chartCard, destroyCharts, type NumbersTable, type Series } from '../charts.ts';
import { dayField } from '../date-field.ts';
import { field, h, select } from '../dom.ts';
import { messageBox, section, type View } from '../ui.ts';
import { channelNextSteps, nextStepsSection } from './next-steps.ts';
import { count, defaultRange, headlineFigures, percent } from './overview-glance.ts';

type AnalyticsQuery = GetQuery<'/v1/analytics/consent'>;
/** A period's (or a region's) figures, as GET /v1/analytics/consent answers them. */
export type Row = Schemas['AnalyticsRow'];
/** The figures without their period or group: what the totals have too. */
export type Counts = Omit<Row, 'period' | 'region' | 'regime' | 'configVersion'>;
type Purpose = Pick<Schemas['Purpose'], 'key' | 'name' | 'required'>;
type Interval = NonNullable<AnalyticsQuery['interval']>;

const INTERVALS: [Interval, string][] = [
  ['day', 'Day'],
  ['week', 'Week'],
  ['month', 'Month'],
];

/**
 * The picks survive a redraw and a visit to another view, as people expect from a dashboard.
 * `chosen`: the reader typed the dates; until then each channel gets its own default range.
 */
const picks: { channelId: string; from: string; to: string; interval: Interval; chosen: boolean } = {
  channelId: '',
  from: '',
  to: '',
  interval: 'day',
  chosen: false,
};

/**
 * Decisions per impression, where it means something: decisions sent through the API or from the
 * preferences link have no impression, so more decisions than impressions is not a rate over 100%.
 */
const answerRate = (decisions: number, impressions: number) =>
  decisions > impressions ? '—' : percent(decisions, impressions);
const periodLabel = (period: string, interval: string) =>
  interval === 'month' ? period.slice(0, 7) : interval === 'week' ? `Week of ${period}` : period;

/**
 * Overview (docs/guides/analytics.md): how a channel's banner performs over a range of days, from
 * GET /v1/analytics/consent. The first view after sign-in.
 */
export const overviewView: View = async (ctx) => {
  destroyCharts();
  const heading = h('h1', {}, 'Overview');
  if (!ctx.can('evidence:read')) {
    return h(
      'div',
      {},
      heading,
      h('p', {}, 'Your role cannot read evidence, so there are no figures to show.'),
    );
  }
  const { data: channels } = await answer(api.GET('/v1/channels', { params: { query: { limit: 100 } } }));
  if (channels.length === 0) {
    return h(
      'div',
      {},
      heading,
      section(
        'No channels yet',
        h(
          'p',
          {},
          'Figures appear here once a channel’s banner is shown to visitors. ',
          h('a', { href: '#/channels' }, 'Create a channel'),
          ', add its snippet to your site, and come back.',
        ),
      ),
    );
  }
  if (!channels.some((c) => c.id === picks.channelId)) picks.channelId = channels[0].id;
  if (!picks.chosen) Object.assign(picks, await defaultRange(picks.channelId));

  const channel = select(
    'channelId',
    channels.map((c) => [c.id, c.status === 'active' ? c.name : `${c.name} (${c.status})`]),
  );
  channel.value = picks.channelId;
  const interval = select('interval', INTERVALS);
  interval.value = picks.interval;
  const errorOf = (name: string) =>
    h('p', { class: 'field-error', id: `overview-${name}-error`, hidden: true });
  const fromField = dayField('From', 'from', picks.from, 'First UTC day');
  const toField = dayField('To', 'to', picks.to, 'Last UTC day');
  const dates = {
    from: fromField.querySelector('input[name="from"]') as HTMLInputElement,
    to: toField.querySelector('input[name="to"]') as HTMLInputElement,
  };
  const errors = { from: errorOf('from'), to: errorOf('to') };
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, 'Show');
  const form = h(
    'form',
    { 'aria-label': 'Channel and dates', class: 'stack filters overview-picks', novalidate: true },
    field('Channel', channel),
    fromField,
    toField,
    field('Interval', interval),
    submit,
  );
  fromField.append(errors.from);
  toField.append(errors.to);
  const headline = h('div', { class: 'headline', 'aria-live': 'polite' });
  // What the picked channel is missing, beside its figures; redrawn when another channel is picked.
  const nextSteps = h('div', { class: 'overview-next-steps' });
  let stepsFor = '';
  function showNextSteps() {
    const picked = channels.find((c) => c.id === picks.channelId);
    if (!picked || stepsFor === picked.id) return;
    stepsFor = picked.id;
    void channelNextSteps(ctx, picked).then((steps) => {
      if (stepsFor === picked.id) nextSteps.replaceChildren(nextStepsSection(steps));
    });
  }
  const results = h('div', { class: 'overview-results', 'aria-live': 'polite', 'aria-busy': 'false' });

  function clearErrors() {
    for (const name of ['from', 'to'] as const) {
      errors[name].hidden = true;
      errors[name].textContent = '';
      dates[name].removeAttribute('aria-invalid');
      dates[name].setAttribute('aria-describedby', `${dates[name].id}-hint`);
    }
  }

  /** The API's errors at their field (`query:/from` → From); what has no field goes to the box. */
  function showError(error: unknown) {
    const list = error instanceof ApiError && Array.isArray(error.body.errors) ? error.body.errors : [];
    let first: HTMLElement | null = null;
    for (const { path, message } of list as { path: string; message: string }[]) {
      const name = path === 'query:/from' ? 'from' : path === 'query:/to' ? 'to' : null;
      if (!name) continue;
      errors[name].hidden = false;
      errors[name].textContent = `${name === 'from' ? 'From' : 'To'} ${message}.`;
      dates[name].setAttribute('aria-invalid', 'true');
      dates[name].setAttribute('aria-describedby', `${dates[name].id}-hint ${errors[name].id}`);
      first ??= dates[name];
    }
    box.show(error);
    first?.focus();
  }

  let loads = 0;
  async function load() {
    const mine = ++loads;
    showNextSteps();
    clearErrors();
    box.hidden = true;
    submit.disabled = true;
    results.setAttribute('aria-busy', 'true');
    const params: AnalyticsQuery = {
      channelId: picks.channelId,
      from: picks.from || undefined,
      to: picks.to || undefined,
      interval: picks.interval,
    };
    try {
      const [overall, regions, purposes] = await Promise.all([
        answer(api.GET('/v1/analytics/consent', { params: { query: params } })),
        answer(api.GET('/v1/analytics/consent', { params: { query: { ...params, groupBy: 'region' } } })),
        answer(
          api.GET('/v1/channels/{id}/purposes', {
            params: { path: { id: picks.channelId }, query: { limit: 100 } },
          }),
        ).then(
          (r): Purpose[] => r.data,
          () => [] as Purpose[],
        ),
      ]);
      if (mine !== loads) return;
      destroyCharts();
      const name = channels.find((c) => c.id === picks.channelId)?.name ?? picks.channelId;
      headline.replaceChildren(headlineFigures(overall.meta.totals, picks.from, picks.to, purposes));
      results.replaceChildren(
        ...figures(name, overall.data, overall.meta.totals, regions.data, purposes, picks.interval),
      );
    } catch (error) {
      if (mine !== loads) return;
      destroyCharts();
      headline.replaceChildren();
      results.replaceChildren();
      showError(error);
    } finally {
      if (mine === loads) {
        submit.disabled = false;
        results.setAttribute('aria-busy', 'false');
      }
    }
  }

  const take = () => {
    picks.channelId = channel.value;
    picks.from = dates.from.value.trim();
    picks.to = dates.to.value.trim();
    picks.interval = interval.value as Interval; // the select offers only INTERVALS
    void load();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    picks.chosen = true;
    take();
  });
  // A pick from a list shows its figures at once; dates wait for "Show" (typing a date passes
  // through days nobody asked for). Another channel opens on its own data unless dates were chosen.
  channel.addEventListener('change', () => {
    if (picks.chosen) return take();
    void defaultRange(channel.value).then((range) => {
      dates.from.value = range.from;
      dates.to.value = range.to;
      take();
    }, showError);
  });
  interval.addEventListener('change', take);

  // The first figures are part of the view, like the first page of every other view's list.
  await load();
  return h('div', {}, heading, headline, section('Channel and dates', form, box), nextSteps, results);
};

function figures(
  channelName: string,
  rows: Row[],
  totals: Counts,
  regionRows: Row[],
  purposes: Purpose[],
  interval: string,
): HTMLElement[] {
  const range = rows.length ? `${rows[0].period} to ${rows[rows.length - 1].period}` : 'the range';
  if (totals.impressions === 0 && totals.decisions === 0) {
    return [
      section(
        'No activity',
        h(
          'p',
          {},
          `${channelName} showed no banner and recorded no decision in this range. Pick other dates, or check that its snippet is on your site.`,
        ),
      ),
    ];
  }
  const per = interval === 'day' ? 'per day' : `per ${interval}`;
  const x = rows.map((r) => r.period);
  const heads = rows.map((r) => periodLabel(r.period, interval));
  const column = (pick: (r: Counts) => number): (number | null)[] => rows.map(pick);
  /** The tables list the newest period first (today's row without scrolling); the charts run left to right. */
  const newestFirst = <T>(items: T[]) => [...items].reverse();

  const activity: NumbersTable = {
    caption: `Impressions and decisions ${per}`,
    headers: ['Period', 'Impressions', 'Decisions', 'Decisions per impression'],
    rows: newestFirst(
      rows.map((r, i) => ({
        head: heads[i],
        cells: [count(r.impressions), count(r.decisions), answerRate(r.decisions, r.impressions)],
      })),
    ),
    total: [
      count(totals.impressions),
      count(totals.decisions),
      answerRate(totals.decisions, totals.impressions),
    ],
  };

  const outcomes: Series[] = [
    { label: 'Accept all', values: column((r) => r.acceptAll) },
    { label: 'Reject all', values: column((r) => r.rejectAll) },
    { label: 'Custom', values: column((r) => r.custom) },
  ];
  const outcomeTable: NumbersTable = {
    caption: `Accept all, reject all and custom ${per}`,
    headers: ['Period', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
    rows: newestFirst(
      rows.map((r, i) => ({
        head: heads[i],
        cells: [count(r.acceptAll), count(r.rejectAll), count(r.custom), count(r.gpc)],
      })),
    ),
    total: [count(totals.acceptAll), count(totals.rejectAll), count(totals.custom), count(totals.gpc)],
  };

  // Required purposes are always granted: their 100% says nothing, so only the optional ones.
  const required = new Set(purposes.filter((p) => p.required).map((p) => p.key));
  const names = new Map(purposes.map((p) => [p.key, p.name]));
  const keys = Object.keys(totals.purposes)
    .filter((k) => !required.has(k))
    .sort();
  const rate = (c: { granted: number; denied: number } | undefined) =>
    c && c.granted + c.denied ? (100 * c.granted) / (c.granted + c.denied) : null;
  const optIn = (c: { granted: number; denied: number } | undefined) =>
    c && c.granted + c.denied
      ? `${percent(c.granted, c.granted + c.denied)} (${count(c.granted)} of ${count(c.granted + c.denied)})`
      : '—';
  const purposeSeries: Series[] = keys.map((k) => ({
    label: names.get(k) ?? k,
    values: rows.map((r) => rate(r.purposes[k])),
  }));
  const purposeTable: NumbersTable = {
    caption: `Opt-in rate per purpose ${per}`,
    headers: ['Period', ...purposeSeries.map((s) => s.label)],
    rows: newestFirst(rows.map((r, i) => ({ head: heads[i], cells: keys.map((k) => optIn(r.purposes[k])) }))),
    total: keys.map((k) => optIn(totals.purposes[k])),
  };

  // Regions over the whole range, most decisions first; "Unknown" when no region was resolved, and
  // "Other regions" for the API's "other" group (the regions past the 50 with the most decisions).
  const byRegion = new Map<string, Counts>();
  for (const r of regionRows) {
    const key = r.region === 'other' ? 'Other regions' : (r.region ?? 'Unknown');
    const into = byRegion.get(key) ?? {
      impressions: 0,
      decisions: 0,
      acceptAll: 0,
      rejectAll: 0,
      custom: 0,
      gpc: 0,
      imports: 0,
      handoffs: 0,
      purposes: {},
    };
    for (const k of [
      'impressions',
      'decisions',
      'acceptAll',
      'rejectAll',
      'custom',
      'gpc',
      'imports',
      'handoffs',
    ] as const)
      into[k] += r[k];
    byRegion.set(key, into);
  }
  const regions = [...byRegion.entries()].sort(
    (a, b) => b[1].decisions - a[1].decisions || a[0].localeCompare(b[0]),
  );
  const regionTable: NumbersTable = {
    caption: 'Decisions by region',
    headers: ['Region', 'Impressions', 'Decisions', 'Accept all', 'Reject all', 'Custom', 'Of which GPC'],
    rows: regions.map(([region, c]) => ({
      head: region,
      cells: [c.impressions, c.decisions, c.acceptAll, c.rejectAll, c.custom, c.gpc].map(count),
    })),
  };
  const shown = regions.slice(0, 12);

  const cards = [
    chartCard(
      'Impressions and decisions',
      `How often the banner was shown, and how often a visitor chose, ${per}. Decisions per impression is left out (—) where decisions outnumber impressions: a decision sent through the API or from the preferences link has no impression.`,
      {
        kind: 'lines',
        x,
        interval,
        series: [
          { label: 'Impressions', values: column((r) => r.impressions) },
          { label: 'Decisions', values: column((r) => r.decisions) },
        ],
      },
      `Line chart of impressions and decisions ${per}, ${range}: ${count(totals.impressions)} impressions, ${count(totals.decisions)} decisions in all.`,
      activity,
      `total: ${count(totals.impressions)} impressions, ${count(totals.decisions)} decisions`,
    ),
    chartCard(
      'Accept all, reject all, custom',
      `Each decision ${per}, stacked by its outcome. GPC decisions count in these too.`,
      { kind: 'stacked', x, interval, series: outcomes },
      `Stacked bar chart of decisions ${per} by outcome, ${range}: ${count(totals.acceptAll)} accept all, ${count(totals.rejectAll)} reject all, ${count(totals.custom)} custom.`,
      outcomeTable,
      `total: ${count(totals.acceptAll)} accept all, ${count(totals.rejectAll)} reject all, ${count(totals.custom)} custom`,
    ),
  ];
  cards.push(
    keys.length
      ? chartCard(
          'Opt-in rate per purpose',
          `The share of decisions that granted each optional purpose, ${per}. Gaps are periods without decisions.`,
          { kind: 'lines', x, interval, series: purposeSeries, yMax: 100, yValue: (v) => `${v}%` },
          `Line chart of the opt-in rate per purpose ${per}, ${range}: ${keys.map((k) => `${names.get(k) ?? k} ${percent(totals.purposes[k].granted, totals.purposes[k].granted + totals.purposes[k].denied)}`).join(', ')} over the range.`,
          purposeTable,
        )
      : section(
          'Opt-in rate per purpose',
          h('p', {}, 'No decision about an optional purpose in this range.'),
        ),
    chartCard(
      'Decisions by region',
      regions.length > shown.length
        ? `Decisions over the whole range, by the visitor’s region; the chart shows the ${shown.length} with the most, the table all ${regions.length}.`
        : 'Decisions over the whole range, by the visitor’s region.',
      {
        kind: 'categories',
        x: shown.map(([r]) => r),
        series: [{ label: 'Decisions', values: shown.map(([, c]) => c.decisions) }],
      },
      `Bar chart of decisions by region, ${range}: ${shown.map(([r, c]) => `${r} ${count(c.decisions)}`).join(', ')}.`,
      regionTable,
    ),
  );
  return cards;
}
