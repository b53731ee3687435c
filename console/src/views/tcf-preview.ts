import type { GVL } from '@iabtechlabtcf/core';
import { disclosureOf, firstLayerItems } from '../../../sdk/src/tcf/layers/disclosure.ts';
import { h } from '../dom.ts';
import { section } from '../ui.ts';
import { listed, type Names, type Stack, type Vendor } from './tcf-vendors.ts';

export interface OwnPurpose {
  name: string;
  required: boolean;
}

/**
 * "Preview of the TCF layers": what the first and the second layer will list for the vendors chosen
 * in the form (it follows the form before saving). It folds the vendors' declarations with the
 * layers' own code (sdk/src/tcf/layers/disclosure.ts: which purposes take consent or allow an
 * objection, which stacks the first layer names), so the summary cannot drift from the banner; it
 * lists, in English, what the banner draws in the visitor's language.
 */
export function layersPreview(
  vendors: Vendor[],
  names: Names,
  stacks: Stack[],
  ownPurposes: OwnPurpose[],
  /** The form's purpose one treatment, as it is now (the preview follows the checkbox). */
  purposeOneTreatment: () => boolean,
): { el: HTMLElement; redraw(): void } {
  const body = h('div', { class: 'tcf-preview' });
  const stackNames = new Map(stacks.map((s) => [s.id, s.name]));

  function redraw() {
    // The layers' slice of the list: the chosen vendors, and the stacks the first layer may name.
    const gvl = {
      vendors: Object.fromEntries(vendors.map((v) => [v.id, v])),
      stacks: Object.fromEntries(stacks.map((s) => [s.id, s])),
    } as unknown as GVL;
    const treatment = purposeOneTreatment();
    const d = disclosureOf(gvl, { purposeOneTreatment: treatment });
    if (d.vendorIds.length === 0) {
      body.replaceChildren(h('p', { class: 'empty' }, 'Choose vendors to see what the layers will list.'));
      return;
    }
    const shown = vendors.filter((v) => d.vendorIds.includes(v.id));
    body.replaceChildren(
      firstLayerCard(d, firstLayerItems(gvl, d), { shown, names, stackNames, ownPurposes, treatment }),
      secondLayerCard(d, { shown, names, ownPurposes }),
    );
  }
  redraw();
  const el = section(
    'Preview of the TCF layers',
    h(
      'p',
      { class: 'lead' },
      'What the banner’s two layers will list for the vendors chosen above, before you save. A summary in English: visitors get the layers themselves, in their language, from the vendor list’s translations.',
    ),
    body,
  );
  el.classList.add('tcf-section');
  return { el, redraw };
}

type Disclosure = ReturnType<typeof disclosureOf>;

const item = (term: string, ...detail: (Node | string)[]) => [h('dt', {}, term), h('dd', {}, ...detail)];
const bullets = (label: string, lines: string[]) =>
  lines.length ? h('ul', { 'aria-label': label }, ...lines.map((line) => h('li', {}, line))) : 'none';

/** What the first layer lists: how many vendors, the stacks and purposes it names, and its buttons. */
function firstLayerCard(
  d: Disclosure,
  first: ReturnType<typeof firstLayerItems>,
  {
    shown,
    names,
    stackNames,
    ownPurposes,
    treatment,
  }: {
    shown: Vendor[];
    names: Names;
    stackNames: Map<number, string>;
    ownPurposes: OwnPurpose[];
    /** Purpose one treatment, as the form has it now. */
    treatment: boolean;
  },
): HTMLElement {
  const optional = ownPurposes.filter((p) => !p.required).map((p) => p.name);
  const firstNames = [
    ...first.stacks.map((id) => `Stack ${id}: ${stackNames.get(id) ?? 'unknown'}`),
    ...first.purposes.map((id) => `${id}. ${names.purposes.get(id) ?? 'unknown'}`),
    ...first.specialFeatures.map(
      (id) => `Special feature ${id}. ${names.specialFeatures.get(id) ?? 'unknown'}`,
    ),
  ];
  return h(
    'div',
    { class: 'card preview-result' },
    h('h3', {}, 'First layer'),
    h(
      'dl',
      { class: 'facts' },
      ...item(
        'Vendors',
        `${shown.length} ${shown.length === 1 ? 'vendor' : 'vendors'}, with a link to their list`,
      ),
      ...item('Stacks, purposes and special features', bullets('Named in the first layer', firstNames)),
      ...item(
        'Legitimate interest',
        d.liVendors.length
          ? `${d.liVendors.length} of the vendors rely on it; the layer says the visitor may object`
          : 'no vendor relies on it',
      ),
      ...(treatment ? item('Purpose 1', 'not disclosed nor asked for (purpose one treatment)') : []),
      ...item('This site’s own purposes', optional.join(', ') || 'none'),
      ...item('Withdrawal', 'that a choice can be changed or withdrawn at any time, and how'),
      ...item('Buttons, of equal weight', 'Accept all, Reject all, Manage options'),
    ),
  );
}

/** What the second layer (Manage options) lists: each purpose's choices, then each vendor's. */
function secondLayerCard(
  d: Disclosure,
  { shown, names, ownPurposes }: { shown: Vendor[]; names: Names; ownPurposes: OwnPurpose[] },
): HTMLElement {
  const purposeLines = [...new Set([...d.consentPurposes, ...d.liPurposes])]
    .sort((a, b) => a - b)
    .map((id) => {
      const choices = [
        d.consentPurposes.includes(id) ? 'consent' : null,
        d.liPurposes.includes(id) ? 'objection to legitimate interest' : null,
      ].filter(Boolean);
      return `${id}. ${names.purposes.get(id) ?? 'unknown'}: ${choices.join(' and ')}`;
    });
  const vendorLines = shown.map((v) => {
    const toggles = [
      d.consentVendors.includes(v.id) ? 'consent' : null,
      d.liVendors.includes(v.id) ? 'objection' : null,
    ].filter(Boolean);
    return `${v.name}: its purposes, legitimate interests, retention, data categories and privacy policy; ${
      toggles.length ? `toggles for ${toggles.join(' and ')}` : 'no toggle (nothing to choose)'
    }`;
  });
  return h(
    'div',
    { class: 'card preview-result' },
    h('h3', {}, 'Second layer (Manage options)'),
    h(
      'dl',
      { class: 'facts' },
      ...item('Purposes', bullets('Purposes in the second layer', purposeLines)),
      ...item('Special purposes (for information)', listed(d.specialPurposes, names.specialPurposes)),
      ...item('Features (for information)', listed(d.features, names.features)),
      ...item('Special features (opt-in)', listed(d.specialFeatures, names.specialFeatures)),
      ...item('Each vendor', bullets('Vendors in the second layer', vendorLines)),
      ...item('Then this site’s own purposes', ownPurposes.map((p) => p.name).join(', ') || 'none'),
    ),
  );
}
