import { answer, api, type RequestBody } from '../api.ts';
import { button, copyField, date, field, h, input, markRow, table } from '../dom.ts';
import { act, badge, form, messageBox, section, type View, type ViewContext } from '../ui.ts';

/** Webhooks: destinations (secret shown once) and deliveries, with Redeliver for failed ones. */
export const webhooksView: View = async (ctx) => {
  const [destinations, deliveries] = await Promise.all([
    answer(api.GET('/v1/webhook-destinations', { params: { query: { limit: 100 } } })),
    answer(api.GET('/v1/webhook-deliveries', { params: { query: { limit: 50 } } })),
  ]);
  const write = ctx.can('webhooks:write');
  const box = messageBox();
  const secretSlot = h('div', { 'aria-live': 'polite' });
  // A new signing secret survives the redraw that lists its destination, once; never a reload.
  const kept = ctx.kept('webhooks', () => ({ secretOnce: null as string | null }));
  if (kept.secretOnce) showSecret(kept.secretOnce);
  kept.secretOnce = null;
  /** A new secret is shown after the redraw its change asks for. */
  const keepSecret = (secret: string) => {
    kept.secretOnce = secret;
  };
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
  /** A state change of one row (its answer is the redrawn view). */
  const run = (send: () => Promise<unknown>) =>
    act(box, null, async () => {
      await send();
      ctx.refresh();
    });

  const destinationRows = destinations.data.map((d) => [
    h('code', {}, d.url),
    d.description ?? '',
    d.eventTypes.join(', '),
    badge(d.status),
    write ? destinationActions(d.id, d.status, run, keepSecret) : '',
  ]);
  const deliveryRows = deliveries.data.map((d) => [
    d.eventType,
    badge(d.status),
    String(d.attemptCount),
    d.lastResponseStatus === null ? '—' : String(d.lastResponseStatus),
    date(d.lastAttemptAt),
    date(d.createdAt),
    write && d.status === 'failed'
      ? button(
          'Redeliver',
          () => void run(() => api.POST('/v1/webhook-deliveries/{id}/redeliver', byId(d.id))),
        )
      : '',
  ]);
  const create = write ? addDestinationSection(ctx, keepSecret) : null;
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

const byId = (id: string) => ({ params: { path: { id } }, body: {} });

/** A destination's Enable or Disable, and Rotate secret, whose new secret goes to `rotated`. */
function destinationActions(
  id: string,
  status: string,
  run: (send: () => Promise<unknown>) => Promise<void>,
  rotated: (secret: string) => void,
): HTMLElement {
  return h(
    'div',
    { class: 'row' },
    status === 'enabled'
      ? button('Disable', () => void run(() => api.POST('/v1/webhook-destinations/{id}/disable', byId(id))))
      : button('Enable', () => void run(() => api.POST('/v1/webhook-destinations/{id}/enable', byId(id)))),
    button(
      'Rotate secret',
      () =>
        void run(async () => {
          const { data } = await answer(api.POST('/v1/webhook-destinations/{id}/rotate-secret', byId(id)));
          rotated(data.secret);
        }),
    ),
  );
}

/** The form that adds a destination; its signing secret, shown once, goes to `created`. */
function addDestinationSection(ctx: ViewContext, created: (secret: string) => void): HTMLElement {
  return section(
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
        const body: RequestBody<'/v1/webhook-destinations', 'post'> = { url: v('url') };
        if (v('description')) body.description = v('description');
        const types = v('eventTypes')
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
        // Typed by hand: a name outside the catalogue comes back as the API's 422 naming it.
        if (types.length) body.eventTypes = types as NonNullable<typeof body.eventTypes>;
        const { data } = await answer(api.POST('/v1/webhook-destinations', { body }));
        created(data.secret);
        ctx.refresh();
      },
    ),
  );
}
