import { answer, api, type RequestBody } from '../api.ts';
import { channelChoices, channelPicker } from '../channel-picker.ts';
import { button, date, field, h, input, markRow, select, table } from '../dom.ts';
import { badge, form, section, type View } from '../ui.ts';

/** Exports: request one, watch it, download the file (a plain link: the cookie goes with it). */
export const exportsView: View = async (ctx) => {
  const [{ data: exports }, channels] = await Promise.all([
    answer(api.GET('/v1/exports', { params: { query: { limit: 50 } } })),
    channelChoices(),
  ]);
  const canCreate = ctx.can('exports:create');
  const rows = exports.map((x) => [
    h('code', {}, x.id),
    badge(x.status),
    x.format,
    x.rowCount === null ? '—' : String(x.rowCount),
    date(x.createdAt),
    date(x.expiresAt),
    x.status === 'succeeded' && canCreate
      ? h('a', { href: `/v1/exports/${x.id}/file`, download: '' }, 'Download')
      : (x.failureReason ?? ''),
  ]);
  const request = canCreate
    ? section(
        'Request export',
        form(
          'Request export',
          [
            field(
              'Format',
              select('format', [
                ['jsonl', 'JSON Lines'],
                ['csv', 'CSV'],
              ]),
            ),
            field('Channel', channelPicker('channelId', channels)),
            field('From', input('from', { placeholder: '2026-01-01T00:00:00Z' })),
            field('To', input('to', { placeholder: '2026-12-31T23:59:59Z' })),
          ],
          'Request export',
          async (el) => {
            const fields: Record<string, string> = {};
            new FormData(el).forEach((v, k) => {
              if (typeof v === 'string' && v.trim()) fields[k] = v.trim();
            });
            // Each field goes only when filled, as typed (the API's 422 says what is wrong with it).
            const body: RequestBody<'/v1/exports', 'post'> = {
              format: fields.format as 'jsonl' | 'csv' | undefined,
              channelId: fields.channelId,
              from: fields.from,
              to: fields.to,
            };
            await api.POST('/v1/exports', { body });
            ctx.refresh();
          },
        ),
      )
    : null;
  const page = h(
    'div',
    {},
    h('h1', {}, 'Exports'),
    request ?? '',
    section(
      'Your exports',
      button('Refresh', () => ctx.refresh()),
      table(
        ['ID', 'Status', 'Format', 'Rows', 'Requested', 'Expires', 'File'],
        rows,
        'Exports',
        exports.map((x) => x.id),
      ),
    ),
  );
  markRow(page, ctx.params[0]);
  return page;
};
