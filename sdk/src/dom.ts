/**
 * The DOM helpers every piece of the SDK's UI draws with (the banner, the notice, tcf.js's layers
 * and reopen control): one copy, so tcf.js does not bundle the banner to reach them. They hold no
 * state: each SDK instance keeps its own roots (dialog(), floating()).
 */
export function h(tag: string, attrs: Record<string, string | boolean> = {}, ...children: (Node | string)[]) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) el.setAttribute(name, '');
    else if (value !== false) el.setAttribute(name, value);
  }
  for (const child of children) el.append(child);
  return el;
}

export function button(action: string, label: string, alt = false) {
  return h(
    'button',
    { type: 'button', class: alt ? 'cs-btn cs-alt' : 'cs-btn', 'data-consent-action': action },
    label,
  );
}

/** Adds a style sheet to the page once (one per id, whichever instance or bundle asks first). */
export function addStyle(id: string, css: string): void {
  if (!document.getElementById(id)) document.head.append(h('style', { id }, css));
}

/** One instance's dialog (the banner, or tcf.js's layers): at most one open, focus given back on close. */
export interface Dialog {
  /** Opens a new dialog (closing the one open) with these attributes, at the end of the body. */
  open(attrs: Record<string, string | boolean>, onClick: (event: Event) => void): HTMLElement;
  close(restoreFocus?: boolean): void;
}

/**
 * A labelled, non-blocking dialog fixed at the bottom (`data-consent-banner`), focusable itself; the
 * element that had focus when it opened gets it back when it closes.
 */
export function dialog(): Dialog {
  let open: HTMLElement | null = null;
  let returnFocus: HTMLElement | null = null;
  const close = (restoreFocus = true) => {
    if (!open) return;
    open.remove();
    open = null;
    if (restoreFocus && returnFocus?.isConnected && returnFocus !== document.body) returnFocus.focus();
    returnFocus = null;
  };
  return {
    open(attrs, onClick) {
      close(false);
      returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      open = h('div', {
        'data-consent-banner': true,
        role: 'dialog',
        'aria-modal': 'false',
        ...attrs,
        tabindex: '-1',
      });
      open.addEventListener('click', onClick);
      document.body.append(open);
      return open;
    },
    close,
  };
}

/** One instance's persistent button (the choices link, tcf.js's reopen control). */
export interface Floating {
  /** Shows `make()` unless one is shown; it takes focus when the last one had it as it went away. */
  show(make: () => HTMLElement): void;
  hide(): void;
  /** Remembers that focus was inside `el` as it goes away (replaced by something else). */
  keepFocus(el: HTMLElement | null): void;
}

/**
 * A button that stays on the page until replaced: whether focus was on it when it went away is
 * kept, so the next one shown takes it and keyboard focus does not fall to the top of the page.
 */
export function floating(): Floating {
  let shown: HTMLElement | null = null;
  let refocus = false;
  const keepFocus = (el: HTMLElement | null) => {
    refocus ||= !!el?.contains(document.activeElement);
  };
  return {
    show(make) {
      if (shown?.isConnected) return;
      shown = make();
      document.body.append(shown);
      if (refocus) shown.focus();
      refocus = false;
    },
    hide() {
      keepFocus(shown);
      shown?.remove();
      shown = null;
    },
    keepFocus,
  };
}
