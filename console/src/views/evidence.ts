import { get, query } from '../api.ts';
import { channelChoices, channelPicker } from '../channel-picker.ts';
import { date, field, h, input, select, table } from '../dom.ts';
import { form, section, type View } from '../ui.ts';

// The filters survive a redraw, as people expect from a search form.
let filters: Record<string, string> = {};

/** Evidence: the consent events, filterable; pseudonyms arrive masked from the API. */
export const evidenceView: View = async () => {
  const channels = await channelChoices();
  const names = new Map(channels.map((c) => [c.id, c.name]));
  const results = h('div', {});
  async function load(cursor?: string) {
    const { data, meta } = await get<any[]>(`/v1/evidence${query({ ...filters, limit: '50', cursor })}`);
    const rows = data.map((e) => [
      date(e.recordedAt),
      names.get(e.channelId) ?? h('code', {}, e.channelId),
      h('code', {}, e.subject.pseudonym),
      Object.entries(e.decisions as Record<string, string>)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', '),
      e.source,
      e.origin ?? '—',
      String(e.configVersion),
    ]);
    const more = meta.nextCursor
      ? h('button', { type: 'button', onclick: () => void load(meta.nextCursor) }, 'Next page')
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
  const value = (name: string) => filters[name] ?? '';
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
      field('From', input('from', { placeholder: '2026-01-01T00:00:00Z', value: value('from') })),
      field('To', input('to', { placeholder: '2026-12-31T23:59:59Z', value: value('to') })),
    ],
    'Apply filters',
    async (el) => {
      const next: Record<string, string> = {};
      new FormData(el).forEach((v, k) => {
        if (typeof v === 'string' && v.trim()) next[k] = v.trim();
      });
      filters = next;
      await load();
    },
  );
  (filterForm.elements.namedItem('decision') as HTMLSelectElement).value = value('decision');
  (filterForm.elements.namedItem('source') as HTMLSelectElement).value = value('source');
  filterForm.classList.add('filters');
  await load();
  return h('div', {}, h('h1', {}, 'Evidence'), section('Filters', filterForm), section('Events', results));
};
