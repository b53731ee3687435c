import { get, query } from '../api.ts';
import { date, field, h, input, table } from '../dom.ts';
import { form, section, type View } from '../ui.ts';

/** Audit log: who did what, filterable by action and actor. */
export const auditView: View = async () => {
  const results = h('div', {});
  let filters: Record<string, string> = {};
  async function load(cursor?: string) {
    const { data, meta } = await get<any[]>(`/v1/audit-logs${query({ ...filters, limit: '50', cursor })}`);
    const rows = data.map((e) => [
      date(e.occurredAt),
      h('code', {}, e.action),
      `${e.actor.type}${e.actor.id ? ` ${e.actor.id}` : ''}`,
      e.target ? `${e.target.type} ${e.target.id}` : '—',
      e.ipPrefix ?? '—',
      h('code', {}, e.requestId ?? '—'),
    ]);
    results.replaceChildren(
      table(['When', 'Action', 'Actor', 'Target', 'Address', 'Request'], rows, 'Audit entries'),
      meta.nextCursor
        ? h('button', { type: 'button', onclick: () => void load(meta.nextCursor) }, 'Next page')
        : '',
    );
  }
  const filterForm = form(
    'Audit filters',
    [
      field('Action', input('action', { placeholder: 'api_key.created' })),
      field('Actor ID', input('actorId')),
    ],
    'Apply filters',
    async (el) => {
      filters = {};
      new FormData(el).forEach((v, k) => {
        if (typeof v === 'string' && v.trim()) filters[k] = v.trim();
      });
      await load();
    },
  );
  filterForm.classList.add('filters');
  await load();
  return h('div', {}, h('h1', {}, 'Audit log'), section('Filters', filterForm), section('Entries', results));
};
