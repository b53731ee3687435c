import { purposeText } from '../../decisions.ts';
import { button, h } from '../../dom.ts';
import { acSection } from '../additional-consent.ts';
import { itemName, sectionHeading, toggle } from './controls.ts';
import type { LayerContext } from './index.ts';
import { type Kind, standardTexts } from './standard-texts.ts';
import { fill } from './strings.ts';
import { vendorSection } from './vendors.ts';

type Declared = {
  id: number;
  name: string;
  description: string;
  illustrations?: string[];
  standardTexts?: unknown;
};

/**
 * A declared item's name, its description, the standard texts the policy has shown with it (TCF
 * v2.4) and, folded, the vendor list's illustrations.
 */
function described(ctx: LayerContext, nameId: string, item: Declared, kind: Kind): Node[] {
  const nodes: Node[] = [
    itemName(nameId, item.name),
    h('p', {}, item.description),
    ...standardTexts(ctx.standardTexts, kind, item.id, item),
  ];
  if (item.illustrations?.length) {
    const list = h('ul', { class: 'cs-tcf-ill' }, ...item.illustrations.map((text) => h('li', {}, text)));
    nodes.push(h('details', {}, h('summary', {}, ctx.t.illustrations), list));
  }
  return nodes;
}

/**
 * Purposes (Appendix B, secondary layer): each with the number of vendors asking for it, a consent
 * toggle where a vendor asks consent (off until the visitor switches it on) and, where a vendor
 * claims a legitimate interest, a toggle to object to it (on until the visitor objects). Never an
 * objection toggle for purposes 1 and 3–6: those take consent only.
 */
function purposeSection(ctx: LayerContext): Node[] {
  const { gvl, t, disclosure: d, previous } = ctx;
  const ids = Array.from(new Set([...d.consentPurposes, ...d.liPurposes])).sort((a, b) => a - b);
  const vendors = Object.values(gvl.vendors);
  const list = h('ul');
  for (const id of ids) {
    const nameId = `cs-tcf-p${id}`;
    const consent = vendors.filter((v) => v.purposes.includes(id)).length;
    const li = vendors.filter((v) => v.legIntPurposes.includes(id)).length;
    const toggles = h('div', { class: 'cs-tcf-toggles' });
    if (d.consentPurposes.includes(id)) {
      const on = previous?.purposeConsents.includes(id) ?? false;
      toggles.append(toggle('data-tcf-purpose-consent', id, t.consent, nameId, on));
    }
    if (d.liPurposes.includes(id)) {
      const on = previous ? previous.purposeLegitimateInterests.includes(id) : true;
      toggles.append(toggle('data-tcf-purpose-li', id, t.objection, nameId, on));
    }
    const count = h(
      'p',
      { class: 'cs-tcf-count' },
      fill(t.partnerCount, { c: consent, l: d.liPurposes.includes(id) ? li : 0 }),
    );
    list.append(
      h(
        'li',
        { 'data-tcf-purpose-item': String(id) },
        ...described(ctx, nameId, gvl.purposes[id], 'purposes'),
        count,
        toggles,
      ),
    );
  }
  return [sectionHeading('cs-tcf-purposes', t.purposes), list];
}

/** Special purposes and features: disclosed for information; the policy gives no choice over them. */
function infoSection(ctx: LayerContext, kind: 'specialPurposes' | 'features'): Node[] {
  const ids = ctx.disclosure[kind];
  if (!ids.length) return [];
  const heading = kind === 'features' ? ctx.t.features : ctx.t.specialPurposes;
  const note = kind === 'features' ? ctx.t.featuresNote : ctx.t.specialPurposesNote;
  const list = h('ul');
  for (const id of ids) {
    const item = ctx.gvl[kind][id];
    list.append(
      h(
        'li',
        { [`data-tcf-${kind === 'features' ? 'feature' : 'special-purpose'}-item`]: String(id) },
        ...described(ctx, `cs-tcf-${kind}${id}`, item, kind),
      ),
    );
  }
  return [sectionHeading(`cs-tcf-${kind}`, heading), h('p', {}, note), list];
}

/** Special features need an explicit opt-in: off by default. */
function specialFeatureSection(ctx: LayerContext): Node[] {
  const { gvl, t, disclosure: d, previous } = ctx;
  if (!d.specialFeatures.length) return [];
  const list = h('ul');
  for (const id of d.specialFeatures) {
    const nameId = `cs-tcf-sf${id}`;
    const on = previous?.specialFeatureOptins.includes(id) ?? false;
    const toggles = h(
      'div',
      { class: 'cs-tcf-toggles' },
      toggle('data-tcf-special-feature', id, t.optIn, nameId, on),
    );
    list.append(
      h(
        'li',
        { 'data-tcf-special-feature-item': String(id) },
        ...described(ctx, nameId, gvl.specialFeatures[id], 'specialFeatures'),
        toggles,
      ),
    );
  }
  return [sectionHeading('cs-tcf-special-features', t.specialFeatures), list];
}

/** The channel's own purposes, as the SDK's banner shows them: required ones locked on. */
function ownSection(ctx: LayerContext): Node[] {
  const { config, language, strings, t, previous } = ctx;
  if (!config.purposes.length) return [];
  const list = h('ul');
  config.purposes.forEach((purpose, i) => {
    const text = purposeText(purpose, language);
    const descId = `cs-tcf-own${i}`;
    const box = h('input', {
      type: 'checkbox',
      'data-consent-purpose': purpose.key,
      checked: purpose.required || previous?.decisions[purpose.key] === 'granted',
      disabled: purpose.required,
      'aria-describedby': descId,
    });
    const label = h('label', {}, box, h('span', {}, text.name));
    if (purpose.required) label.append(h('span', { class: 'cs-req' }, strings.required));
    list.append(h('li', {}, label, h('p', { id: descId }, text.description)));
  });
  return [sectionHeading('cs-tcf-own', t.ownTitle), list];
}

/** "Manage options": everything the first layer summarised, item by item, with its choices. */
export function secondLayer(ctx: LayerContext): Node[] {
  const { strings, t } = ctx;
  return [
    h('h2', { id: 'cs-tcf-manage-title' }, t.manageTitle),
    h('p', { id: 'cs-consent-desc' }, t.manageIntro),
    ...purposeSection(ctx),
    ...infoSection(ctx, 'specialPurposes'),
    ...infoSection(ctx, 'features'),
    ...specialFeatureSection(ctx),
    ...vendorSection(ctx),
    ...acSection(ctx),
    ...ownSection(ctx),
    h(
      'div',
      { class: 'cs-actions' },
      button('accept-all', strings.accept),
      button('reject-all', strings.reject),
      button('save', strings.save),
    ),
  ];
}
