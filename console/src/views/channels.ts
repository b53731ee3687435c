import { answer, api, type RequestBody, type Schemas } from '../api.ts';
import { button, copyField, date, field, h, input, select, table } from '../dom.ts';
import { withSectionIndex } from '../section-index.ts';
import { act, badge, form, messageBox, section, type View, type ViewContext } from '../ui.ts';
import { identitySecretsSection } from './identity-secrets.ts';
import { keepTheChoiceSection } from './keep-the-choice.ts';
import { channelNextSteps, nextStepsSection } from './next-steps.ts';
import { configVersionsSection, previewSection, regionRulesSection } from './regions.ts';
import { rejectCooldownSection } from './reject-cooldown.ts';
import { scansSection } from './scans.ts';
import { tcfSections } from './tcf.ts';
import { usSignalsSection } from './us-signals.ts';

type Channel = Schemas['Channel'];
type PurposeBody = RequestBody<'/v1/channels/{id}/purposes', 'post'>;
type TechnologyBody = RequestBody<'/v1/channels/{id}/technologies', 'post'>;

/** Opens a channel by its address (`#/channels/<id>`), so the open channel survives a reload. */
function openChannel(ctx: ViewContext, id: string) {
  const hash = `#/channels/${encodeURIComponent(id)}`;
  if (location.hash === hash) ctx.refresh();
  else location.hash = hash;
}

/** The service's BASE_URL, as the snippet's direct form names it (the console's own origin without one). */
function serviceUrlOf(directHtml: string | null): string {
  const match = directHtml ? /src="([^"]*)\/v1\/public\/sites\//.exec(directHtml) : null;
  return match ? match[1] : location.origin;
}

/** Channels: create, then per channel its purposes, technologies, origins and snippet. */
export const channelsView: View = async (ctx) => {
  const { data: channels } = await answer(api.GET('/v1/channels', { params: { query: { limit: 100 } } }));
  const manage = ctx.can('channels:manage');
  const open = channels.find((c) => c.id === ctx.params[0]) ?? null;
  const rows = channels.map((c) => [
    button(c.name, () => openChannel(ctx, c.id), { class: 'link', 'aria-label': `Open ${c.name}` }),
    h('code', {}, c.siteKey),
    badge(c.status),
    String(c.configVersion),
    date(c.createdAt),
  ]);
  const create = manage
    ? section(
        'Create channel',
        form(
          'Create channel',
          [
            field('Channel name', input('name', { required: true, maxlength: 200 })),
            field('Privacy policy URL', input('url', { type: 'url' })),
          ],
          'Create channel',
          async (el) => {
            const name = (el.elements.namedItem('name') as HTMLInputElement).value.trim();
            const url = (el.elements.namedItem('url') as HTMLInputElement).value.trim();
            const { data } = await answer(
              api.POST('/v1/channels', { body: url ? { name, privacyPolicy: { url } } : { name } }),
            );
            openChannel(ctx, data.id);
          },
        ),
      )
    : null;
  return h(
    'div',
    {},
    h('h1', {}, 'Channels'),
    create ?? '',
    section(
      'Your channels',
      table(['Name', 'Site key', 'Status', 'Config version', 'Created'], rows, 'Channels'),
    ),
    open
      ? await channelDetail(ctx, open, manage)
      : ctx.params[0]
        ? // A link to a channel of the other environment, or to one that is gone.
          section(
            'Channel not found',
            h('p', {}, `No channel ${ctx.params[0]} in ${ctx.session.environment} data.`),
          )
        : '',
  );
};

async function channelDetail(ctx: ViewContext, channel: Channel, manage: boolean): Promise<HTMLElement> {
  const id = channel.id;
  const list = { params: { path: { id }, query: { limit: 100 } } };
  const [purposes, technologies, origins, snippet, versions, identitySecrets] = await Promise.all([
    answer(api.GET('/v1/channels/{id}/purposes', list)),
    answer(api.GET('/v1/channels/{id}/technologies', list)),
    answer(api.GET('/v1/channels/{id}/origins', list)),
    answer(
      api.GET('/v1/public/sites/{siteKey}/snippet', {
        params: { path: { siteKey: channel.siteKey } },
        // Public pages may keep it minutes; here it must follow the channel's firstPartyPath at once.
        cache: 'no-cache',
      }),
    ).catch(() => null),
    configVersionsSection(channel),
    identitySecretsSection(channel, manage),
  ]);
  const box = messageBox();
  const change: Change = (send) =>
    act(box, null, async () => {
      await send();
      ctx.refresh();
    });

  const page = h(
    'div',
    { class: 'detail' },
    h('h2', {}, `Channel: ${channel.name}`),
    box,
    nextStepsSection(await channelNextSteps(ctx, channel)),
    snippetSection(snippet?.data ?? null),
    purposesSection(ctx, id, purposes.data, manage, change),
    technologiesSection(ctx, id, technologies.data, manage, change),
    originsSection(ctx, id, origins.data, manage, change),
    await scansSection(ctx, channel, technologies.data, purposes.data, manage),
    regionRulesSection(ctx, channel, manage),
    rejectCooldownSection(ctx, channel, manage),
    usSignalsSection(ctx, channel, manage),
    keepTheChoiceSection(ctx, channel, manage, serviceUrlOf(snippet?.data.directHtml ?? null)),
    identitySecrets,
    ...(await tcfSections(
      ctx,
      channel,
      manage,
      purposes.data.filter((p) => p.status === 'active'),
    )),
    previewSection(channel),
    versions,
  );
  return withSectionIndex(page, `#/channels/${encodeURIComponent(channel.id)}`, ctx.params[1]);
}

/** A change from a row's button: sent, then the view redrawn (a problem shows in the channel's box). */
type Change = (send: () => Promise<unknown>) => Promise<void>;

/** The snippet to paste, and without the first-party path when the channel has one; none once archived. */
function snippetSection(snippet: Schemas['Snippet'] | null): HTMLElement {
  return section(
    'Snippet',
    snippet
      ? copyField('Snippet HTML', snippet.html, true)
      : h('p', {}, 'This channel is archived: it has no snippet.'),
    // With a first-party path the snippet above loads the SDK through it; this one without it.
    snippet?.firstPartyHtml
      ? copyField('Snippet HTML without the first-party path', snippet.directHtml, true)
      : null,
  );
}

/** The channel's purposes, each renamed or archived in its row, and the form that adds one. */
function purposesSection(
  ctx: ViewContext,
  id: string,
  purposes: Schemas['Purpose'][],
  manage: boolean,
  change: Change,
): HTMLElement {
  const purposeRows = purposes.map((p) => [
    h('code', {}, p.key),
    p.name,
    p.legalBasis,
    p.required ? 'yes' : 'no',
    badge(p.status),
    manage && p.status === 'active'
      ? h(
          'div',
          { class: 'row' },
          button('Rename', () => {
            const name = window.prompt(`New name of the purpose "${p.key}"`, p.name);
            if (name) {
              void change(() =>
                api.PATCH('/v1/channels/{id}/purposes/{purposeId}', {
                  params: { path: { id, purposeId: p.id } },
                  body: { name },
                }),
              );
            }
          }),
          button(
            'Archive',
            () =>
              void change(() =>
                api.POST('/v1/channels/{id}/purposes/{purposeId}/archive', {
                  params: { path: { id, purposeId: p.id } },
                  body: {},
                }),
              ),
          ),
        )
      : '',
  ]);
  const purposeForm = form(
    'Add purpose',
    [
      field(
        'Purpose key',
        input('key', { required: true, pattern: '[a-z][a-z0-9_]{0,39}' }),
        'Lower case, e.g. analytics',
      ),
      field('Purpose name', input('name', { required: true })),
      field('Description', input('description')),
      field(
        'Legal basis',
        select('legalBasis', [
          ['consent', 'Consent'],
          ['legitimate_interest', 'Legitimate interest'],
        ]),
      ),
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'required' }),
        'Strictly necessary',
      ),
    ],
    'Add purpose',
    async (el) => {
      const v = (n: string) => (el.elements.namedItem(n) as HTMLInputElement).value.trim();
      const body: PurposeBody = {
        key: v('key'),
        name: v('name'),
        legalBasis: v('legalBasis') as PurposeBody['legalBasis'],
      };
      if (v('description')) body.description = v('description');
      body.required = (el.elements.namedItem('required') as HTMLInputElement).checked;
      await api.POST('/v1/channels/{id}/purposes', { params: { path: { id } }, body });
      ctx.refresh();
    },
  );
  return section(
    'Purposes',
    table(['Key', 'Name', 'Legal basis', 'Required', 'Status', 'Actions'], purposeRows, 'Purposes'),
    manage ? purposeForm : null,
  );
}

/** The channel's declared technologies, each deleted in its row, and the form that adds one. */
function technologiesSection(
  ctx: ViewContext,
  id: string,
  technologies: Schemas['Technology'][],
  manage: boolean,
  change: Change,
): HTMLElement {
  const techRows = technologies.map((t) => [
    t.name,
    t.vendor ?? '—',
    t.purposeKeys.join(', ') || '—',
    [...t.cookies.map((c) => c.name), ...t.hosts].join(', ') || '—',
    manage
      ? button(
          'Delete',
          () =>
            void change(() =>
              api.DELETE('/v1/channels/{id}/technologies/{technologyId}', {
                params: { path: { id, technologyId: t.id } },
              }),
            ),
        )
      : '',
  ]);
  const techForm = form(
    'Add technology',
    [
      field('Technology name', input('name', { required: true })),
      field('Vendor', input('vendor')),
      field('Purpose keys', input('purposeKeys'), 'Comma-separated, e.g. analytics'),
    ],
    'Add technology',
    async (el) => {
      const v = (n: string) => (el.elements.namedItem(n) as HTMLInputElement).value.trim();
      const body: TechnologyBody = {
        name: v('name'),
        purposeKeys: v('purposeKeys')
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      };
      if (v('vendor')) body.vendor = v('vendor');
      await api.POST('/v1/channels/{id}/technologies', { params: { path: { id } }, body });
      ctx.refresh();
    },
  );
  return section(
    'Technologies',
    table(['Name', 'Vendor', 'Purposes', 'Cookies and hosts', 'Actions'], techRows, 'Technologies'),
    manage ? techForm : null,
  );
}

/** The origins allowed to load the banner, each archived in its row, and the form that adds one. */
function originsSection(
  ctx: ViewContext,
  id: string,
  origins: Schemas['Origin'][],
  manage: boolean,
  change: Change,
): HTMLElement {
  const originRows = origins.map((o) => [
    h('code', {}, o.origin),
    badge(o.status),
    manage && o.status === 'active'
      ? button(
          'Archive',
          () =>
            void change(() =>
              api.POST('/v1/channels/{id}/origins/{originId}/archive', {
                params: { path: { id, originId: o.id } },
                body: {},
              }),
            ),
        )
      : '',
  ]);
  const originForm = form(
    'Add origin',
    [field('Origin', input('origin', { required: true, placeholder: 'https://www.example.com' }))],
    'Add origin',
    async (el) => {
      await api.POST('/v1/channels/{id}/origins', {
        params: { path: { id } },
        body: { origin: (el.elements.namedItem('origin') as HTMLInputElement).value.trim() },
      });
      ctx.refresh();
    },
  );
  return section(
    'Origins',
    table(['Origin', 'Status', 'Actions'], originRows, 'Origins'),
    manage ? originForm : null,
  );
}
