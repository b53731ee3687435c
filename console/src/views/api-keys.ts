import { answer, api, type RequestBody, type Schemas } from '../api.ts';
import { button, copyField, date, field, h, input, markRow, table } from '../dom.ts';
import { act, badge, form, messageBox, section, type View, type ViewContext } from '../ui.ts';

type ApiKey = Schemas['ApiKey'];
/** A key as its creation answers it: with its secret, shown once. */
type CreatedKey = Schemas['ApiKeyWithSecret'];

/** API keys: list without secrets, create with scopes the role allows, rotate, revoke. */
export const apiKeysView: View = async (ctx) => {
  const root = h('div', {});
  // The secret lives only in this closure: a reload or another view and it is gone for good.
  const secretSlot = h('div', { 'aria-live': 'polite' });
  const listSlot = h('div', {});
  const listBox = messageBox();
  const manage = ctx.can('api_keys:manage');

  function showSecret(secret: string, what: string) {
    secretSlot.replaceChildren(
      h(
        'div',
        { class: 'card secret' },
        h('h3', {}, what),
        h('p', {}, 'Copy the secret now: it is shown only once and cannot be retrieved later.'),
        copyField('Secret', secret),
        button('Done', () => secretSlot.replaceChildren()),
      ),
    );
    (secretSlot.querySelector('input') as HTMLInputElement).focus();
  }

  async function loadList() {
    const { data } = await answer(api.GET('/v1/api-keys', { params: { query: { limit: 100 } } }));
    const rows = data.map((key) => [
      h('strong', {}, key.name),
      h('code', {}, `${key.prefix}…`),
      key.scopes.join(', '),
      badge(key.status),
      date(key.createdAt),
      date(key.lastUsedAt),
      manage && key.status === 'active'
        ? h(
            'div',
            { class: 'row' },
            button('Rotate', () => rotate(key), { 'aria-describedby': `key-${key.id}` }),
            button('Revoke', () => revoke(key), { class: 'danger' }),
            h('span', { id: `key-${key.id}`, class: 'visually-hidden' }, key.name),
          )
        : '',
    ]);
    listSlot.replaceChildren(
      table(
        ['Name', 'Prefix', 'Scopes', 'Status', 'Created', 'Last used', 'Actions'],
        rows,
        'API keys',
        data.map((k) => k.id),
      ),
    );
    markRow(listSlot, ctx.params[0]);
  }

  function rotate(key: ApiKey) {
    void act(listBox, null, async () => {
      const { data } = await answer(
        api.POST('/v1/api-keys/{id}/rotate', { params: { path: { id: key.id } }, body: {} }),
      );
      showSecret(data.secret, `Key "${key.name}" rotated: the old one keeps working for 24 hours.`);
      await loadList();
    });
  }

  function revoke(key: ApiKey) {
    if (!window.confirm(`Revoke the key "${key.name}"? Calls with it are refused from now on.`)) return;
    void act(listBox, null, async () => {
      await api.POST('/v1/api-keys/{id}/revoke', { params: { path: { id: key.id } }, body: {} });
      listBox.ok(`Key "${key.name}" revoked.`);
      await loadList();
    });
  }

  const create = createKeySection(ctx, async (key) => {
    showSecret(key.secret, `Key "${key.name}" created.`);
    await loadList();
  });

  await loadList();
  root.append(
    h('h1', {}, 'API keys'),
    h(
      'p',
      { class: 'lead' },
      `Keys act in the ${ctx.session.environment} environment, with the scopes chosen here.`,
    ),
    secretSlot,
    create,
    section('Keys', listBox, listSlot),
  );
  return root;
};

/**
 * The form that issues a key, with the scopes the member's role allows; `created` shows the new
 * key's secret. Without api_keys:manage it is shown disabled, saying who can issue keys.
 */
function createKeySection(ctx: ViewContext, created: (key: CreatedKey) => Promise<void>): HTMLElement {
  const createForm = form(
    'Create key',
    [
      field('Name', input('name', { required: true, maxlength: 200 })),
      h(
        'fieldset',
        { class: 'scopes' },
        h('legend', {}, 'Scopes'),
        // Only what the member's role allows: the API would refuse anything else anyway.
        ...ctx.session.scopes.map((scope) =>
          h(
            'label',
            { class: 'check' },
            h('input', { type: 'checkbox', name: 'scope', value: scope }),
            scope,
          ),
        ),
      ),
    ],
    'Create key',
    async (el) => {
      const name = (el.elements.namedItem('name') as HTMLInputElement).value.trim();
      // The boxes are the session's own scopes, names of the catalogue the body's type lists.
      const scopes = [...el.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map(
        (c) => c.value as RequestBody<'/v1/api-keys', 'post'>['scopes'][number],
      );
      const { data } = await answer(api.POST('/v1/api-keys', { body: { name, scopes } }));
      el.reset();
      await created(data);
    },
  );
  if (!ctx.can('api_keys:manage')) {
    // Issuing keys needs api_keys:manage, which this role does not hold: show what it could hold, disabled.
    for (const control of createForm.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, button'))
      control.disabled = true;
    createForm.prepend(
      h(
        'p',
        { class: 'message ok' },
        `Your role (${ctx.session.member.role}) cannot issue keys: ask an owner, admin or developer, or use the CLI.`,
      ),
    );
  }
  return section('Create key', createForm);
}
