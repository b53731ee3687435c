import { ApiError, answer, api, type Schemas } from '../api.ts';
import { button, copyField, date, h, table } from '../dom.ts';
import { guideLink } from '../guide-link.ts';
import { act, messageBox } from '../ui.ts';

type IdentitySecret = Schemas['IdentitySecret'];

/** The service keeps two active secrets at most: one in use and its successor while rotating. */
const MAX_ACTIVE = 2;
/** The guide, as the service serves it (GET /docs/guides/<name>). */
const GUIDE = () => guideLink('Signed-in visitors', 'signed-in-visitors.md');

/**
 * "Identity secrets": the secrets a site's backend signs its visitors' identity tokens
 * with, so a signed-in visitor's choice applies on every device. Listed without secrets; a new
 * secret is shown once, here, and lives only in this closure: the section redraws itself instead of
 * the whole view, and a reload or another view loses it for good.
 */
export async function identitySecretsSection(
  channel: { id: string; siteKey: string },
  manage: boolean,
): Promise<HTMLElement> {
  const id = channel.id;
  const box = messageBox();
  const secretSlot = h('div', { 'aria-live': 'polite' });
  const listSlot = h('div', {});
  const heading = h('h2', { id: `identity-${channel.id}` }, 'Identity secrets');

  let active = 0;
  // Not act's own disabling: that would enable the button again after load() turned it off at the limit.
  const create = button('Create identity secret', () => {
    create.disabled = true;
    void act(box, null, async () => {
      const { data } = await answer(
        api.POST('/v1/channels/{id}/identity-secrets', { params: { path: { id } }, body: {} }),
      );
      await load();
      showSecret(data);
    }).finally(() => {
      create.disabled = active >= MAX_ACTIVE;
    });
  });
  const limitNote = h('p', { class: 'muted', id: `identity-${channel.id}-limit` });
  create.setAttribute('aria-describedby', limitNote.id);

  function showSecret(created: Schemas['CreatedIdentitySecret']) {
    secretSlot.replaceChildren(
      secretCard(created, () => {
        secretSlot.replaceChildren();
        (create.disabled ? heading : create).focus();
      }),
    );
    secretSlot.querySelector('input')?.focus();
  }

  /** Revokes a secret once its row's confirming button is pressed, then says so. */
  const revoke = (secret: IdentitySecret, confirm: HTMLButtonElement) =>
    void act(box, confirm, async () => {
      await api.DELETE('/v1/channels/{id}/identity-secrets/{secretId}', {
        params: { path: { id, secretId: secret.id } },
      });
      await load();
      box.ok(`Identity secret ${secret.id} revoked.`);
      heading.focus();
    });

  async function load() {
    const { data } = await answer(
      api.GET('/v1/channels/{id}/identity-secrets', { params: { path: { id } } }),
    );
    const rows = data.map((s) => [
      h('code', {}, s.id),
      date(s.createdAt),
      manage ? revokeCell(s, (confirm) => revoke(s, confirm)) : '',
    ]);
    listSlot.replaceChildren(table(['ID', 'Created', 'Actions'], rows, 'Identity secrets'));
    active = data.length;
    const full = active >= MAX_ACTIVE;
    create.disabled = full;
    limitNote.textContent = full
      ? `${MAX_ACTIVE} secrets are active, the most a channel has: revoke one before creating another.`
      : `${data.length} of ${MAX_ACTIVE} secrets active.`;
  }

  heading.tabIndex = -1;
  try {
    await load();
  } catch (error) {
    // A role that cannot read them still sees the section, with why it is empty.
    box.show(error);
    if (error instanceof ApiError && error.status === 403) {
      box.textContent = 'Your role cannot see this channel’s identity secrets.';
    }
  }
  return h(
    'section',
    { class: 'card identity-secrets' },
    heading,
    ...about(channel.siteKey),
    box,
    secretSlot,
    listSlot,
    manage ? h('div', { class: 'row' }, create) : null,
    manage ? limitNote : null,
  );
}

/** A new secret, shown once with its copy field; `done` clears it. */
function secretCard(created: Schemas['CreatedIdentitySecret'], done: () => void): HTMLElement {
  return h(
    'div',
    { class: 'card secret' },
    h('h3', {}, `Identity secret ${created.id} created`),
    h(
      'p',
      {},
      h('strong', {}, 'Copy it now: you will not see this secret again.'),
      ' Keep it on your backend only (never in a page or an app): whoever holds it can sign in any account.',
    ),
    copyField('Identity secret', created.secret),
    button('Done', done),
  );
}

/**
 * A row's Revoke, which asks first in the row itself (no blocking browser dialog): the question, a
 * confirming button that takes focus and runs `revoke`, and Cancel, which puts Revoke back and
 * focuses it.
 */
function revokeCell(secret: IdentitySecret, revoke: (confirm: HTMLButtonElement) => void): HTMLElement {
  const cell = h('div', {});
  const questionId = `revoke-${secret.id}-question`;
  const showRevoke = () => {
    const revokeButton = button('Revoke', ask, { class: 'danger', 'aria-label': `Revoke ${secret.id}` });
    cell.replaceChildren(revokeButton);
    return revokeButton;
  };
  function ask() {
    const confirm = button('Yes, revoke', () => revoke(confirm), {
      class: 'danger',
      'aria-label': `Yes, revoke ${secret.id}`,
      'aria-describedby': questionId,
    });
    cell.replaceChildren(
      h(
        'div',
        { class: 'stack' },
        h(
          'span',
          { id: questionId },
          `Revoke ${secret.id}? Tokens signed with it are refused from now on: visitors whose backend still signs with it are no longer recognized.`,
        ),
        h(
          'div',
          { class: 'row' },
          confirm,
          button('Cancel', () => showRevoke().focus()),
        ),
      ),
    );
    confirm.focus();
  }
  showRevoke();
  return cell;
}

/** What identity secrets are for, and why two can be active at once. */
function about(siteKey: string): HTMLElement[] {
  return [
    h(
      'p',
      { class: 'lead' },
      'For signed-in visitors: your backend signs a short-lived token for the visitor’s account with one of these secrets (HS256, audience ',
      h('code', {}, siteKey),
      '), and the visitor’s choice then applies on every device where they are signed in. How to mint a token: ',
      GUIDE(),
      '.',
    ),
    h(
      'p',
      {},
      `At most ${MAX_ACTIVE} secrets are active at once, so you can rotate without downtime: create a second secret, move your backend to it, then revoke the first. A token signed with a revoked secret is refused.`,
    ),
  ];
}
