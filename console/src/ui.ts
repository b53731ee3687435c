import { ApiError, type Session } from './api.ts';
import { h } from './dom.ts';

/** What a view gets: the session, a way to redraw itself, and a place for errors and notices. */
export interface ViewContext {
  session: Session;
  can(scope: string): boolean;
  refresh(): void;
  /** What follows the view in the address (`#/channels/<id>`: the channel's id). */
  params: string[];
  /**
   * What a view keeps across its redraws (a notice to say once, a search's filters), per console
   * instance rather than in a module-level variable: `ctx.kept<T>('webhooks', () => ({ … }))`
   * returns the same object on every render of this console.
   */
  kept<T extends object>(name: string, initial: () => T): T;
}

export type View = (ctx: ViewContext) => Promise<HTMLElement>;

/** An alert region per form: the API problem's detail, said once, read by screen readers. */
export type MessageBox = HTMLElement & { show(error: unknown): void; ok(text: string): void };

export function messageBox(): MessageBox {
  const box = h('p', { role: 'alert', class: 'message', hidden: true }) as unknown as MessageBox;
  box.show = (error) => {
    box.hidden = false;
    box.className = 'message error';
    box.textContent = error instanceof ApiError ? error.detail : 'Something went wrong. Retry in a moment.';
  };
  box.ok = (text) => {
    box.hidden = false;
    box.className = 'message ok';
    box.textContent = text;
  };
  return box;
}

/** Runs an action with its button disabled, showing any problem in `box`. */
export async function act(box: MessageBox, control: HTMLButtonElement | null, run: () => Promise<void>) {
  if (control) control.disabled = true;
  box.hidden = true;
  try {
    await run();
  } catch (error) {
    box.show(error);
  } finally {
    if (control) control.disabled = false;
  }
}

export function section(title: string, ...children: (Node | null | false)[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

/** A form whose submit runs `run` (Enter works; the button is a real submit button). */
export function form(
  label: string,
  fields: HTMLElement[],
  submitText: string,
  run: (form: HTMLFormElement) => Promise<void>,
): HTMLFormElement {
  const box = messageBox();
  const submit = h('button', { type: 'submit' }, submitText);
  const el = h('form', { 'aria-label': label, class: 'stack' }, ...fields, submit, box);
  el.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(box, submit, () => run(el));
  });
  return el;
}

export function badge(text: string): HTMLElement {
  return h('span', { class: `badge badge-${text.replace(/[^a-z]/g, '')}` }, text);
}

/**
 * A notice a save says after the redraw it causes (the redraw makes a new message box), once and on
 * the same channel only; kept per console instance (ViewContext.kept), under `name`.
 */
export function noticeAfterRedraw(ctx: ViewContext, name: string) {
  const kept = ctx.kept(`notice:${name}`, () => ({
    pending: null as { channelId: string; text: string } | null,
  }));
  return {
    say(channelId: string, text: string) {
      kept.pending = { channelId, text };
    },
    /** The notice for `channelId`, if one waits; taking it clears it. */
    take(channelId: string): string | null {
      const pending = kept.pending;
      if (pending?.channelId !== channelId) return null;
      kept.pending = null;
      return pending.text;
    },
  };
}
