import { h } from '../dom.ts';
import { section } from '../ui.ts';
import { listed, type Names, type Vendor } from './tcf-vendors.ts';

/** Purposes no vendor may base on legitimate interest (TCF 2.2 and later): consent only. */
const CONSENT_ONLY = new Set([1, 3, 4, 5, 6]);

const union = (vendors: Vendor[], pick: (v: Vendor) => number[]) =>
  [...new Set(vendors.flatMap(pick))].sort((a, b) => a - b);

/** What the chosen vendors ask for, as the two layers group it. */
export function layerContents(vendors: Vendor[]) {
  const consentPurposes = union(vendors, (v) => [...v.purposes, ...v.flexiblePurposes]);
  const objectionPurposes = union(vendors, (v) => v.legIntPurposes).filter((id) => !CONSENT_ONLY.has(id));
  return {
    purposes: union(vendors, (v) => [...v.purposes, ...v.legIntPurposes, ...v.flexiblePurposes]),
    consentPurposes,
    objectionPurposes,
    specialPurposes: union(vendors, (v) => v.specialPurposes),
    features: union(vendors, (v) => v.features),
    specialFeatures: union(vendors, (v) => v.specialFeatures),
  };
}

/**
 * "Preview of the TCF layers": what the first and the second layer will list for the vendors chosen
 * in the form (it follows the form before saving). A summary of the layers' contents, not the
 * banner itself: the banner draws them in the visitor's language from the list's translations.
 */
export function layersPreview(
  vendors: Vendor[],
  names: Names,
  ownPurposes: string[],
): { el: HTMLElement; redraw(): void } {
  const body = h('div', { class: 'tcf-preview' });
  const item = (term: string, ...detail: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...detail)];
  const bullets = (label: string, lines: string[]) =>
    lines.length ? h('ul', { 'aria-label': label }, ...lines.map((line) => h('li', {}, line))) : 'none';

  function redraw() {
    if (vendors.length === 0) {
      body.replaceChildren(h('p', { class: 'empty' }, 'Choose vendors to see what the layers will list.'));
      return;
    }
    const c = layerContents(vendors);
    const purpose = (id: number) => `${id}. ${names.purposes.get(id) ?? 'unknown'}`;
    const purposeLines = c.purposes.map((id) => {
      const choices = [
        c.consentPurposes.includes(id) ? 'consent' : null,
        c.objectionPurposes.includes(id) ? 'objection to legitimate interest' : null,
      ].filter(Boolean);
      return `${purpose(id)}: ${choices.join(' and ') || 'for information'}`;
    });
    const vendorLines = vendors.map((v) => {
      const consent = v.purposes.length + v.flexiblePurposes.length > 0;
      const objection = v.legIntPurposes.some((id) => !CONSENT_ONLY.has(id));
      const toggles = [consent ? 'consent' : null, objection ? 'objection' : null].filter(Boolean);
      return `${v.name}: its purposes, legitimate interests, retention, data categories and privacy policy; ${
        toggles.length ? `toggles for ${toggles.join(' and ')}` : 'no toggle (special purposes only)'
      }`;
    });
    body.replaceChildren(
      h(
        'div',
        { class: 'card preview-result' },
        h('h3', {}, 'First layer'),
        h(
          'dl',
          { class: 'facts' },
          ...item('Vendors', `${vendors.length} ${vendors.length === 1 ? 'vendor' : 'vendors'}, by number`),
          ...item('Purposes (or a stack covering them)', listed(c.purposes, names.purposes)),
          ...item('Special features', listed(c.specialFeatures, names.specialFeatures)),
          ...item('Withdrawal', 'that a choice can be changed or withdrawn at any time'),
          ...item('Buttons, of equal weight', 'Accept all, Reject all, Manage options'),
        ),
      ),
      h(
        'div',
        { class: 'card preview-result' },
        h('h3', {}, 'Second layer'),
        h(
          'dl',
          { class: 'facts' },
          ...item('Purposes', bullets('Purposes in the second layer', purposeLines)),
          ...item('Special purposes (for information)', listed(c.specialPurposes, names.specialPurposes)),
          ...item('Features (for information)', listed(c.features, names.features)),
          ...item('Special features (opt-in)', listed(c.specialFeatures, names.specialFeatures)),
          ...item('Each vendor', bullets('Vendors in the second layer', vendorLines)),
          ...item('Then this channel’s own purposes', ownPurposes.join(', ') || 'none'),
          ...item('Buttons', 'Accept all, Reject all, Save choices'),
        ),
      ),
    );
  }
  redraw();
  const el = section(
    'Preview of the TCF layers',
    h(
      'p',
      { class: 'lead' },
      'What the banner will list for the vendors chosen above, before you save: a summary of each layer’s contents in English. Visitors see the layers in their language, from the vendor list’s translations.',
    ),
    body,
  );
  el.classList.add('tcf-section');
  return { el, redraw };
}
