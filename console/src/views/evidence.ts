import { answer, api, type GetQuery, type Schemas } from '../api.ts';
import { channelChoices, channelPicker } from '../channel-picker.ts';
import { dayField, ISO_DAY } from '../date-field.ts';
import { date, field, h, input, select, table } from '../dom.ts';
import { form, section, type View } from '../ui.ts';
import { channelPurposes, decisionList, outcomeWords } from './evidence-decisions.ts';
import { evidenceEventView } from './evidence-event.ts';

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

type EvidenceEvent = Schemas['EvidenceEvent'];

/** The table's rows: each event's time (its link), channel, subject, decisions and outcome, source, origin. */
async function eventRows(events: EvidenceEvent[], names: Map<string, string>) {
  const purposes = await channelPurposes(events.map((e) => e.channelId));
  return events.map((e) => [
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
    outcomeWords(e.decisions, purposes.get(e.channelId)),
    e.source,
    e.origin ?? '—',
    String(e.configVersion),
  ]);
}

/**
 * Evidence: the consent events, filterable; pseudonyms arrive masked from the API.
 * `#/evidence/<evt_…>` opens one event; `#/evidence/subject/<evt_…>` lists the decisions of that
 * event's subject (the API's sameSubjectAs: the console knows only the masked pseudonym).
 */
export const evidenceView: View = async (ctx) => {
  const channels = await channelChoices();
  const names = new Map(channels.map((c) => [c.id, c.name]));
  const sameSubjectAs = ctx.params[0] === 'subject' ? ctx.params[1] : undefined;
  if (ctx.params[0] && !sameSubjectAs) return evidenceEventView(ctx.params[0], names);
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
      ...(sameSubjectAs ? { sameSubjectAs, subjectId: undefined } : {}),
    };
    const { data, meta } = await answer(
      api.GET('/v1/evidence', { params: { query: { ...sent, limit: 50, cursor } } }),
    );
    const rows = await eventRows(data, names);
    const more = meta.nextCursor
      ? h('button', { type: 'button', onclick: () => void load(meta.nextCursor ?? undefined) }, 'Next page')
      : null;
    results.replaceChildren(
      table(
        ['Recorded', 'Channel', 'Subject', 'Decisions', 'Outcome', 'Source', 'Origin', 'Config version'],
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
      // One subject already chosen by an event: its raw id is not known, and both would be refused.
      ...(sameSubjectAs
        ? []
        : [
            field(
              'Subject ID',
              input('subjectId', { value: value('subjectId') }),
              'The raw id; the service looks up its pseudonym.',
            ),
          ]),
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
  return h(
    'div',
    {},
    h('h1', {}, sameSubjectAs ? 'Evidence: one subject’s decisions' : 'Evidence'),
    sameSubjectAs ? subjectLead(sameSubjectAs) : null,
    section('Filters', filterForm),
    section('Events', results),
  );
};

/** Whose decisions a subject's list shows, with the ways back. */
function subjectLead(eventId: string): HTMLElement {
  return h(
    'p',
    { class: 'lead' },
    'Every decision of the subject of event ',
    h('a', { href: `#/evidence/${encodeURIComponent(eventId)}` }, h('code', {}, eventId)),
    ', on every channel of this environment, newest first. ',
    h('a', { href: '#/evidence' }, 'All evidence events'),
    '.',
  );
}
