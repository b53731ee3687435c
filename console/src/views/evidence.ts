import { answer, api, type GetQuery } from '../api.ts';
import { channelChoices, channelPicker } from '../channel-picker.ts';
import { dayField, ISO_DAY } from '../date-field.ts';
import { date, field, h, input, select, table } from '../dom.ts';
import { form, section, type View } from '../ui.ts';
import { decisionList, evidenceEventView, purposeNames } from './evidence-event.ts';

/** The form's fields, as typed (the days are sent as instants). */
type Filters = Partial<
  Record<'channelId' | 'purpose' | 'decision' | 'source' | 'subjectId' | 'from' | 'to', string>
>;
type EvidenceQuery = GetQuery<'/v1/evidence'>;

/**
 * A filter's day as the API's instant: From is the day's first second, To its last (UTC); anything
 * else (a full RFC 3339 instant) goes as typed, and the API's 422 says what is wrong with it.
 */
const instant = (day: string, end: boolean) =>
  ISO_DAY.test(day) ? `${day}T${end ? '23:59:59' : '00:00:00'}Z` : day;

/**
 * Evidence: the consent events, filterable; pseudonyms arrive masked from the API.
 * `#/evidence/<evt_…>` opens one event.
 */
export const evidenceView: View = async (ctx) => {
  const channels = await channelChoices();
  const names = new Map(channels.map((c) => [c.id, c.name]));
  if (ctx.params[0]) return evidenceEventView(ctx.params[0], names);
  // The filters survive a redraw, as people expect from a search form.
  const kept = ctx.kept('evidence', () => ({ filters: {} as Filters }));
  const results = h('div', {});
  async function load(cursor?: string) {
    const filters = kept.filters;
    const sent: EvidenceQuery = {
      ...filters,
      // The form's selects offer only the API's values.
      decision: filters.decision as EvidenceQuery['decision'],
      source: filters.source as EvidenceQuery['source'],
      from: filters.from && instant(filters.from, false),
      to: filters.to && instant(filters.to, true),
    };
    const { data, meta } = await answer(
      api.GET('/v1/evidence', { params: { query: { ...sent, limit: 50, cursor } } }),
    );
    const purposes = await purposeNames(data.map((e) => e.channelId));
    const rows = data.map((e) => [
      h(
        'a',
        {
          href: `#/evidence/${encodeURIComponent(e.id)}`,
          'aria-label': `${date(e.recordedAt)}: open this event`,
        },
        date(e.recordedAt),
      ),
      names.get(e.channelId) ?? h('code', {}, e.channelId),
      h('code', {}, e.subject.pseudonym),
      decisionList(e.decisions, purposes.get(e.channelId)),
      e.source,
      e.origin ?? '—',
      String(e.configVersion),
    ]);
    const more = meta.nextCursor
      ? h('button', { type: 'button', onclick: () => void load(meta.nextCursor ?? undefined) }, 'Next page')
      : null;
    results.replaceChildren(
      table(
        ['Recorded', 'Channel', 'Subject', 'Decisions', 'Source', 'Origin', 'Config version'],
        rows,
        'Evidence events',
      ),
      more ?? '',
    );
  }
  const value = (name: keyof Filters) => kept.filters[name] ?? '';
  const filterForm = form(
    'Evidence filters',
    [
      field('Channel', channelPicker('channelId', channels, value('channelId'))),
      field('Purpose', input('purpose', { value: value('purpose') })),
      field(
        'Decision',
        select('decision', [
          ['', 'Any'],
          ['granted', 'Granted'],
          ['denied', 'Denied'],
        ]),
      ),
      field(
        'Source',
        select('source', [
          ['', 'Any'],
          ['banner', 'Banner'],
          ['preference_center', 'Preference center'],
          ['api', 'API'],
          ['gpc', 'GPC'],
        ]),
      ),
      field(
        'Subject ID',
        input('subjectId', { value: value('subjectId') }),
        'The raw id; the service looks up its pseudonym.',
      ),
      dayField('From', 'from', value('from'), 'First UTC day'),
      dayField('To', 'to', value('to'), 'Last UTC day'),
    ],
    'Apply filters',
    async (el) => {
      const next: Record<string, string> = {};
      new FormData(el).forEach((v, k) => {
        if (typeof v === 'string' && v.trim()) next[k] = v.trim();
      });
      kept.filters = next;
      await load();
    },
  );
  (filterForm.elements.namedItem('decision') as HTMLSelectElement).value = value('decision');
  (filterForm.elements.namedItem('source') as HTMLSelectElement).value = value('source');
  filterForm.classList.add('filters');
  await load();
  return h('div', {}, h('h1', {}, 'Evidence'), section('Filters', filterForm), section('Events', results));
};
