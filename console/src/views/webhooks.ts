import { call, get, post } from '../api.ts';
import { button, copyField, date, field, h, input, markRow, table } from '../dom.ts';
import { act, badge, form, messageBox, section, type View } from '../ui.ts';

// A new signing secret survives the redraw that lists its destination, once; never a reload.
let secretOnce: string | null = null;

/** Webhooks: destinations (secret shown once) and deliveries, with Redeliver for failed ones. */
export const webhooksView: View = async (ctx) => {
  const [destinations, deliveries] = await Promise.all([
    get<any[]>('/v1/webhook-destinations?limit=100'),
    get<any[]>('/v1/webhook-deliveries?limit=50'),
  ]);
  const write = ctx.can('webhooks:write');
  const box = messageBox();
  const secretSlot = h('div', { 'aria-live': 'polite' });
  if (secretOnce) showSecret(secretOnce);
  secretOnce = null;
  function showSecret(secret: string) {
    secretSlot.replaceChildren(
      h(
        'div',
        { class: 'card secret' },
        h('p', {}, 'The signing secret is shown only once.'),
        copyField('Signing secret', secret),
      ),
    );
  }
  const run = (method: string, path: string, after?: (data: any) => void) =>
    act(box, null, async () => {
      const { data } = await call(method, path, {});
      if (after) after(data);
      else ctx.refresh();
    });

  const destinationRows = destinations.data.map((d) => [
    h('code', {}, d.url),
    d.description ?? '',
    d.eventTypes.join(', '),
    badge(d.status),
    write
      ? h(
          'div',
          { class: 'row' },
          d.status === 'enabled'
            ? button('Disable', () => void run('POST', `/v1/webhook-destinations/${d.id}/disable`))
            : button('Enable', () => void run('POST', `/v1/webhook-destinations/${d.id}/enable`)),
          button(
            'Rotate secret',
            () =>
              void run('POST', `/v1/webhook-destinations/${d.id}/rotate-secret`, (x) => {
                secretOnce = x.secret;
                ctx.refresh();
              }),
          ),
        )
      : '',
  ]);
  const deliveryRows = deliveries.data.map((d) => [
    d.eventType,
    badge(d.status),
    String(d.attemptCount),
    d.lastResponseStatus === null ? '—' : String(d.lastResponseStatus),
    date(d.lastAttemptAt),
    date(d.createdAt),
    write && d.status === 'failed'
      ? button('Redeliver', () => void run('POST', `/v1/webhook-deliveries/${d.id}/redeliver`))
      : '',
  ]);
  const create = write
    ? section(
        'Add destination',
        form(
          'Add destination',
          [
            field(
              'Endpoint URL',
              input('url', { type: 'url', required: true, placeholder: 'https://hooks.example.com/consent' }),
            ),
            field('Description', input('description')),
            field('Event types', input('eventTypes'), 'Comma-separated; empty for every event.'),
          ],
          'Add destination',
          async (el) => {
            const v = (n: string) => (el.elements.namedItem(n) as HTMLInputElement).value.trim();
            const body: Record<string, unknown> = { url: v('url') };
            if (v('description')) body.description = v('description');
            const types = v('eventTypes')
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean);
            if (types.length) body.eventTypes = types;
            const { data } = await post('/v1/webhook-destinations', body);
            secretOnce = data.secret;
            ctx.refresh();
          },
        ),
      )
    : null;
  const page = h(
    'div',
    {},
    h('h1', {}, 'Webhooks'),
    box,
    secretSlot,
    create ?? '',
    section(
      'Destinations',
      table(
        ['URL', 'Description', 'Events', 'Status', 'Actions'],
        destinationRows,
        'Destinations',
        destinations.data.map((d) => d.id),
      ),
    ),
    section(
      'Deliveries',
      table(
        ['Event', 'Status', 'Attempts', 'Last response', 'Last attempt', 'Created', 'Actions'],
        deliveryRows,
        'Deliveries',
        deliveries.data.map((d) => d.id),
      ),
    ),
  );
  markRow(page, ctx.params[0]);
  return page;
};
