import { field, h } from './dom.ts';

/** A UTC day as the charts, the tables and the API write it. */
export const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A day field in ISO 8601 (`2026-03-02`), the format of the chart axes and the tables: a native
 * `<input type="date">` shows the browser's locale instead (03/02/2026 in en-US, 02/03/2026 in
 * en-GB), so the same day would read three ways on one page. The text field takes a typed or
 * pasted day; the Calendar button opens the browser's own calendar (showPicker) on a native date
 * input kept out of sight and out of the tab order, and writes the day it returns in ISO.
 * Overview and Evidence use the same one.
 */
export function dayField(label: string, name: string, value: string, hint: string): HTMLElement {
  const text = h('input', {
    name,
    type: 'text',
    value,
    inputmode: 'numeric',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'YYYY-MM-DD',
    pattern: '\\d{4}-\\d{2}-\\d{2}',
    maxlength: 10,
    size: 10,
  });
  const wrapped = field(label, text, `${hint} (YYYY-MM-DD)`);
  const native = h('input', {
    type: 'date',
    class: 'native-date',
    tabindex: -1,
    'aria-hidden': 'true',
    'aria-label': `${label}, calendar`,
  });
  const canPick = typeof native.showPicker === 'function';
  if (!canPick) return wrapped;
  const open = h(
    'button',
    { type: 'button', class: 'calendar', 'aria-label': `Calendar: ${label}` },
    'Calendar',
  );
  open.addEventListener('click', () => {
    native.value = ISO_DAY.test(text.value) ? text.value : '';
    try {
      native.showPicker();
    } catch {
      text.focus();
    }
  });
  native.addEventListener('change', () => {
    if (!native.value) return;
    text.value = native.value;
    text.dispatchEvent(new Event('input', { bubbles: true }));
    text.focus();
  });
  const row = h('div', { class: 'day-input' });
  text.before(row);
  row.append(text, open, native);
  return wrapped;
}
