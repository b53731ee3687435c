import { ApiError, answer, api } from '../api.ts';
import { h, input } from '../dom.ts';
import { messageBox, noticeAfterRedraw, type ViewContext } from '../ui.ts';

const MAX_DAYS = 395;

// Saving redraws the whole view: the notice is said after the redraw, where the form was.

/** What the setting does, in the words of the SDK's behaviour. */
function effect(days: number): string {
  return days === 0
    ? 'A visitor who refuses every optional purpose is asked again as any other visitor: after a material change, or when the decision is too old.'
    : `A visitor who refuses every optional purpose sees no banner for ${days} ${days === 1 ? 'day' : 'days'}, not even after a material change.`;
}

/**
 * "After a refusal": the channel's `rejectCooldownDays`, 0–395, saved with
 * PATCH /v1/channels/:id; the same rule is checked before sending and the API's error for the
 * field is shown at it.
 */
export function rejectCooldownSection(
  ctx: ViewContext,
  channel: { id: string; rejectCooldownDays?: number },
  manage: boolean,
): HTMLElement {
  const days = channel.rejectCooldownDays ?? 0;
  const id = `reject-cooldown-${channel.id}`;
  const heading = h('h2', { id: `${id}-heading`, tabindex: -1 }, 'After a refusal');
  const notice = messageBox();
  const said = noticeAfterRedraw(ctx, 'reject-cooldown').take(channel.id);
  if (said) {
    notice.ok(said);
    // The redraw dropped the focus that was on Save: it goes to this section, not the page's top.
    // The view is attached once all of it is built, so wait for that (a second at most).
    let tries = 0;
    const focus = () => (heading.isConnected ? heading.focus() : ++tries < 50 && setTimeout(focus, 20));
    setTimeout(focus, 0);
  }
  return h(
    'section',
    { class: 'card reject-cooldown' },
    heading,
    notice,
    h('p', {}, effect(days)),
    h(
      'p',
      { class: 'lead' },
      'The "privacy choices" link still opens the preferences at any time, and every banner offers "Reject all" beside "Accept all", with the same size and weight.',
    ),
    manage ? cooldownForm(ctx, channel.id, days, id) : null,
  );
}

function cooldownForm(ctx: ViewContext, channelId: string, days: number, id: string): HTMLElement {
  const control = input('rejectCooldownDays', {
    type: 'number',
    inputmode: 'numeric',
    min: 0,
    max: MAX_DAYS,
    step: 1,
    id,
    'aria-describedby': `${id}-hint`,
  });
  control.value = String(days);
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, 'Save');

  function showError(message: string) {
    error.hidden = false;
    error.textContent = message;
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', `${id}-hint ${error.id}`);
    control.focus();
  }
  function clearError() {
    error.hidden = true;
    error.textContent = '';
    control.removeAttribute('aria-invalid');
    control.setAttribute('aria-describedby', `${id}-hint`);
  }

  const el = h(
    'form',
    { 'aria-label': 'Banner after a refusal', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, 'Days without a banner after a refusal'),
      control,
      h(
        'small',
        { id: `${id}-hint` },
        `A whole number from 0 to ${MAX_DAYS}. After a visitor refuses every optional purpose, the banner stays away this many days, even after a material change. 0 asks again as usual. The EU’s Digital Omnibus proposal speaks of six months (about 183 days).`,
      ),
      error,
    ),
    submit,
    box,
  );
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    box.hidden = true;
    clearError();
    const text = control.value.trim();
    const value = Number(text);
    if (!/^\d+$/.test(text) || value > MAX_DAYS) {
      showError(`Enter a whole number of days from 0 to ${MAX_DAYS}.`);
      return;
    }
    submit.disabled = true;
    answer(
      api.PATCH('/v1/channels/{id}', {
        params: { path: { id: channelId } },
        body: { rejectCooldownDays: value },
      }),
    )
      .then(({ data }) => {
        noticeAfterRedraw(ctx, 'reject-cooldown').say(
          channelId,
          `Saved: ${value} ${value === 1 ? 'day' : 'days'} without a banner after a refusal. The channel is at config version ${data.configVersion}.`,
        );
        ctx.refresh();
      })
      .catch((problem: unknown) => {
        const errors =
          problem instanceof ApiError && Array.isArray(problem.body.errors) ? problem.body.errors : [];
        const mine = (errors as { path: string; message: string }[]).find(
          (e) => e.path === '/rejectCooldownDays',
        );
        const friendly = `Enter a whole number of days from 0 to ${MAX_DAYS}.`;
        if (mine) showError(/^must be/.test(mine.message) ? friendly : mine.message);
        else box.show(problem);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return el;
}
