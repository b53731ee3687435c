import { answer, api, type GetQuery, type Schemas } from '../api.ts';
import { type Child, date, field, h, input, table } from '../dom.ts';
import { form, section, type View } from '../ui.ts';

/** Where each kind of id is shown: the view (and the row or channel in it) the id names. */
const VIEW_OF: Record<string, (id: string) => string> = {
  channel: (id) => `#/channels/${encodeURIComponent(id)}`,
  api_key: (id) => `#/api-keys/${encodeURIComponent(id)}`,
  export: (id) => `#/exports/${encodeURIComponent(id)}`,
  webhook_destination: (id) => `#/webhooks/${encodeURIComponent(id)}`,
  webhook_delivery: (id) => `#/webhooks/${encodeURIComponent(id)}`,
  evidence: (id) => `#/evidence/${encodeURIComponent(id)}`,
};

/**
 * An id as a link to what it names where the console shows that; a member (no members view) or a
 * purpose, origin, technology, scan or identity secret (the entry does not say whose channel) stays
 * text, and so does the system.
 */
function idLink(type: string, id: string | null, name?: string | null): Child {
  const words = type.replace(/_/g, ' ');
  if (!id) return words;
  const href = VIEW_OF[type]?.(id);
  const label = h('code', {}, id);
  // The name first, as people know the thing; the id beside it, for a search or the API.
  return h(
    'span',
    {},
    `${words} `,
    name ? h('strong', { class: 'audit-name' }, name) : null,
    name ? ' ' : null,
    href ? h('a', { href }, label) : label,
  );
}

type Entry = Schemas['AuditLogEntry'];

/** Who acted: the member's email, or the API key's name and the email of the member it belongs to. */
function actorCell(e: Entry): Child {
  const link = idLink(e.actor.type, e.actor.id, e.actorName);
  if (e.actor.type !== 'api_key' || !e.actorEmail) return link;
  return h('span', {}, link, h('span', { class: 'audit-owner' }, ` of ${e.actorEmail}`));
}

/** The filters the form sets (the API's query has more). */
type AuditFilters = Partial<Pick<GetQuery<'/v1/audit-logs'>, 'action' | 'actorId'>>;

/** Audit log: who did what, filterable by action and actor. */
export const auditView: View = async () => {
  const results = h('div', {});
  let filters: AuditFilters = {};
  async function load(cursor?: string) {
    const { data, meta } = await answer(
      api.GET('/v1/audit-logs', {
        params: { query: { ...filters, expand: 'names', limit: 50, cursor } },
      }),
    );
    const rows = data.map((e) => [
      date(e.occurredAt),
      h('code', {}, e.action),
      actorCell(e),
      e.target ? idLink(e.target.type, e.target.id, e.targetName) : '—',
      e.ipPrefix ?? '—',
      h('code', {}, e.requestId ?? '—'),
    ]);
    results.replaceChildren(
      table(['When', 'Action', 'Actor', 'Target', 'Address', 'Request'], rows, 'Audit entries'),
      meta.nextCursor
        ? h('button', { type: 'button', onclick: () => void load(meta.nextCursor ?? undefined) }, 'Next page')
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
      const next: Record<string, string> = {};
      new FormData(el).forEach((v, k) => {
        if (typeof v === 'string' && v.trim()) next[k] = v.trim();
      });
      filters = { action: next.action, actorId: next.actorId };
      await load();
    },
  );
  filterForm.classList.add('filters');
  await load();
  return h('div', {}, h('h1', {}, 'Audit log'), section('Filters', filterForm), section('Entries', results));
};
