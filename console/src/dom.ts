/** A few DOM helpers: every text goes through textContent, so nothing from the API is parsed as HTML. */
export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | boolean | number | EventListener | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
}

/** A labelled control; a hint is its description, not part of its name. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  // A fresh id per control, with no counter to keep between calls.
  control.id ||= `field-${crypto.randomUUID()}`;
  const hintId = `${control.id}-hint`;
  if (hint) control.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: control.id }, label),
    control,
    hint ? h('small', { id: hintId }, hint) : null,
  );
}

export function input(name: string, attrs: Attrs = {}): HTMLInputElement {
  return h('input', { name, type: 'text', autocomplete: 'off', ...attrs });
}

export function select(name: string, options: [string, string][], attrs: Attrs = {}): HTMLSelectElement {
  return h('select', { name, ...attrs }, ...options.map(([value, text]) => h('option', { value }, text)));
}

export function button(text: string, onclick: () => void, attrs: Attrs = {}): HTMLButtonElement {
  return h('button', { type: 'button', onclick: () => onclick(), ...attrs }, text);
}

/** A table that scrolls sideways on a narrow screen instead of widening the page. */
export function table(headers: string[], rows: Child[][], caption: string, ids?: string[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, `No ${caption.toLowerCase()} yet.`);
  return scrollCue(
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, caption),
        h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
        h(
          'tbody',
          {},
          ...rows.map((cells, i) => h('tr', { 'data-id': ids?.[i] }, ...cells.map((c) => h('td', {}, c)))),
        ),
      ),
    ),
  );
}

/**
 * A table box that is wider inside than on screen says so: a line above it ("scroll sideways")
 * and a shadow on the side that has more (styles.css), shown only while it overflows, so a phone
 * reader knows the columns past the edge exist.
 */
export function scrollCue(wrap: HTMLElement): HTMLElement {
  const cue = h('p', { class: 'scroll-cue', hidden: true }, 'Scroll sideways for more columns →');
  const update = () => {
    const more = wrap.scrollWidth > wrap.clientWidth + 1;
    cue.hidden = !more;
    wrap.classList.toggle('more-right', more && wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
    wrap.classList.toggle('more-left', more && wrap.scrollLeft > 1);
  };
  new ResizeObserver(update).observe(wrap);
  wrap.addEventListener('scroll', update, { passive: true });
  return h('div', { class: 'table-box' }, cue, wrap);
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  new FormData(form).forEach((value, key) => {
    if (typeof value === 'string' && value.trim() !== '') values[key] = value.trim();
  });
  return values;
}

/** A read-only field with a copy button, for secrets and snippets shown once. */
export function copyField(label: string, value: string, multiline = false): HTMLElement {
  const control = multiline
    ? h('textarea', { readonly: true, rows: 4, spellcheck: 'false' })
    : h('input', { type: 'text', readonly: true, spellcheck: 'false' });
  control.value = value;
  const status = h('span', { role: 'status', class: 'copied' });
  const copy = button('Copy', async () => {
    control.select();
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      document.execCommand('copy');
    }
    status.textContent = 'Copied.';
  });
  return h('div', { class: 'copy-field' }, field(label, control), h('div', { class: 'row' }, copy, status));
}

export const date = (value: string | null) => (value ? value.replace('T', ' ').replace('Z', ' UTC') : '—');

/**
 * The row a link named (`#/api-keys/<id>`, from the audit log): marked as the current one and
 * scrolled into view once on screen, so the reader lands on what the id names.
 */
export function markRow(root: Element, id: string | undefined) {
  if (!id) return;
  const row = [...root.querySelectorAll('tr[data-id]')].find((tr) => tr.getAttribute('data-id') === id);
  if (!row) return;
  row.classList.add('picked');
  row.setAttribute('aria-current', 'true');
  requestAnimationFrame(() => row.scrollIntoView({ block: 'center' }));
}
