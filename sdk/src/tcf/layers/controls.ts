import { h } from '../../dom.ts';

/**
 * A labelled checkbox. Its accessible name is the item's name and the toggle's own words ("Store
 * and/or access information on a device, Consent"), so a screen reader never hears a bare
 * "Consent" without knowing for what.
 */
export function toggle(attr: string, id: number, label: string, nameId: string, on: boolean): HTMLElement {
  const textId = `${nameId}-${attr.slice(9)}`;
  const box = h('input', {
    type: 'checkbox',
    [attr]: String(id),
    checked: on,
    'aria-labelledby': `${nameId} ${textId}`,
  });
  return h('label', { class: 'cs-tcf-toggle' }, box, h('span', { id: textId }, label));
}

/** An item's name, referred to by its toggles' labels. */
export const itemName = (id: string, text: string) => h('span', { class: 'cs-tcf-name', id }, text);

/** A heading that "See the list" can move focus to. */
export const sectionHeading = (id: string, text: string) => h('h3', { id, tabindex: '-1' }, text);
