import { ApiError, answer, api, type GetQuery, type Schemas } from '../api.ts';
import { destroyCharts } from '../charts.ts';
import { dayField } from '../date-field.ts';
import { field, h, select } from '../dom.ts';
import { messageBox, section, type View } from '../ui.ts';
import { channelNextSteps, nextStepsSection } from './next-steps.ts';
import {
  chartMarkers,
  configChangesSection,
  configVersionsOf,
  versionsInRange,
} from './overview-config-changes.ts';
import { figures } from './overview-figures.ts';
import { defaultRange, headlineFigures } from './overview-glance.ts';

type AnalyticsQuery = GetQuery<'/v1/analytics/consent'>;
/** A period's (or a region's) figures, as GET /v1/analytics/consent answers them. */
export type Row = Schemas['AnalyticsRow'];
/** The figures without their period or group: what the totals have too. */
export type Counts = Omit<Row, 'period' | 'region' | 'regime' | 'configVersion'>;
export type Purpose = Pick<Schemas['Purpose'], 'key' | 'name' | 'required'>;
type Interval = NonNullable<AnalyticsQuery['interval']>;

const INTERVALS: [Interval, string][] = [
  ['day', 'Day'],
  ['week', 'Week'],
  ['month', 'Month'],
];

/**
 * The picks survive a redraw and a visit to another view, as people expect from a dashboard: kept
 * per console (ViewContext.kept). `chosen`: the reader typed the dates; until then each channel
 * gets its own default range.
 */
type Picks = { channelId: string; from: string; to: string; interval: Interval; chosen: boolean };
const NO_PICKS = (): Picks => ({ channelId: '', from: '', to: '', interval: 'day', chosen: false });

type Channel = Schemas['Channel'];

/** The view when there is nothing to draw: a role without evidence:read, or no channel yet. */
function withoutFigures(heading: HTMLElement, canRead: boolean): HTMLElement {
  if (!canRead) {
    return h(
      'div',
      {},
      heading,
      h('p', {}, 'Your role cannot read evidence, so there are no figures to show.'),
    );
  }
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

/** The channel, dates and interval form, with the API's date errors shown at their fields. */
function picksForm(picks: Picks, channels: Channel[]) {
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

  function clearErrors() {
    for (const name of ['from', 'to'] as const) {
      errors[name].hidden = true;
      errors[name].textContent = '';
      dates[name].removeAttribute('aria-invalid');
      dates[name].setAttribute('aria-describedby', `${dates[name].id}-hint`);
    }
    box.hidden = true;
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
  return { form, box, channel, interval, dates, submit, clearErrors, showError };
}

/** The figures of the picked channel and range, with the config versions published in it. */
async function fetchFigures(picks: Picks, channels: Channel[]) {
  const params: AnalyticsQuery = {
    channelId: picks.channelId,
    from: picks.from || undefined,
    to: picks.to || undefined,
    interval: picks.interval,
  };
  const [overall, regions, purposes, versions] = await Promise.all([
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
    configVersionsOf(picks.channelId),
  ]);
  const name = channels.find((c) => c.id === picks.channelId)?.name ?? picks.channelId;
  const periods = overall.data.map((r) => r.period);
  const changed = versionsInRange(versions, periods, picks.interval);
  return {
    headline: headlineFigures(overall.meta.totals, picks.from, picks.to, purposes),
    results: [
      ...figures({
        channelName: name,
        rows: overall.data,
        totals: overall.meta.totals,
        regionRows: regions.data,
        purposes,
        interval: picks.interval,
        markers: chartMarkers(changed, periods),
      }),
      configChangesSection(picks.channelId, changed) ?? '',
    ],
  };
}

/**
 * Overview (docs/guides/analytics.md): how a channel's banner performs over a range of days, from
 * GET /v1/analytics/consent, with the config changes marked. The first view after sign-in.
 */
export const overviewView: View = async (ctx) => {
  destroyCharts();
  const heading = h('h1', {}, 'Overview');
  if (!ctx.can('evidence:read')) return withoutFigures(heading, false);
  const { data: channels } = await answer(api.GET('/v1/channels', { params: { query: { limit: 100 } } }));
  if (channels.length === 0) return withoutFigures(heading, true);
  const picks = ctx.kept('overview', NO_PICKS);
  if (!channels.some((c) => c.id === picks.channelId)) picks.channelId = channels[0].id;
  if (!picks.chosen) Object.assign(picks, await defaultRange(picks.channelId));

  const picker = picksForm(picks, channels);
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

  // Only the newest load draws: a slow answer for an earlier pick never replaces a later one.
  let loads = 0;
  async function load() {
    const mine = ++loads;
    showNextSteps();
    picker.clearErrors();
    picker.submit.disabled = true;
    results.setAttribute('aria-busy', 'true');
    try {
      const drawn = await fetchFigures(picks, channels);
      if (mine !== loads) return;
      destroyCharts();
      headline.replaceChildren(drawn.headline);
      results.replaceChildren(...drawn.results);
    } catch (error) {
      if (mine !== loads) return;
      destroyCharts();
      headline.replaceChildren();
      results.replaceChildren();
      picker.showError(error);
    } finally {
      if (mine === loads) {
        picker.submit.disabled = false;
        results.setAttribute('aria-busy', 'false');
      }
    }
  }

  const { channel, interval, dates } = picker;
  const take = () => {
    picks.channelId = channel.value;
    picks.from = dates.from.value.trim();
    picks.to = dates.to.value.trim();
    picks.interval = interval.value as Interval; // the select offers only INTERVALS
    void load();
  };
  picker.form.addEventListener('submit', (event) => {
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
    }, picker.showError);
  });
  interval.addEventListener('change', take);

  // The first figures are part of the view, like the first page of every other view's list.
  await load();
  return h(
    'div',
    {},
    heading,
    headline,
    section('Channel and dates', picker.form, picker.box),
    nextSteps,
    results,
  );
};
