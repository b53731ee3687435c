import { purposeText } from '../../decisions.ts';
import { button, h } from '../../dom.ts';
import { firstLayerItems } from './disclosure.ts';
import type { LayerContext } from './index.ts';
import { fill } from './strings.ts';

/**
 * The first layer, with what the TCF policy (Appendix B, the initial layer) asks of it before any
 * consent: the number of vendors and where their list is, the purposes (or stacks grouping them)
 * and special features by their standard names, that some vendors rely on legitimate interest and
 * that the visitor may object, that consent can be withdrawn at any time and how, the scope of the
 * choice, and equal calls to action.
 *
 * Short paragraphs and a list rather than one block of text: each element stays smaller than the
 * page's own content, so the layer does not become the page's Largest Contentful Paint.
 */
export function firstLayer(ctx: LayerContext): Node[] {
  const { gvl, t, strings, config, disclosure: d } = ctx;
  const items = firstLayerItems(gvl, d);
  const names = h('ul', { class: 'cs-tcf-names', 'aria-labelledby': 'cs-tcf-purposes-heading' });
  // Rule: name the purposes and special features pursued, by their standard names (from the vendor
  // list's language file), stacks allowed in their place, none shown twice.
  for (const id of items.stacks) names.append(h('li', { 'data-tcf-stack': String(id) }, gvl.stacks[id].name));
  for (const id of items.purposes)
    names.append(h('li', { 'data-tcf-purpose': String(id) }, gvl.purposes[id].name));
  for (const id of items.specialFeatures) {
    names.append(h('li', { 'data-tcf-special-feature-name': String(id) }, gvl.specialFeatures[id].name));
  }

  const count = h('p', { id: 'cs-consent-desc' }, fill(t.vendorCount, { n: d.vendorIds.length }), ' ');
  // Rule: the number of vendors, and a direct way to their list (it opens "Manage options" at it).
  count.append(
    h('button', { type: 'button', class: 'cs-tcf-link', 'data-tcf-show': 'vendors' }, t.seeVendors),
  );

  const nodes: Node[] = [
    h('h2', { id: 'cs-tcf-title' }, strings.title),
    // Rule: say that information is stored on and read from the device and personal data processed.
    h('p', {}, t.intro),
    count,
    h('p', { id: 'cs-tcf-purposes-heading' }, t.purposesHeading),
    names,
  ];
  if (d.specialFeatures.length) nodes.push(h('p', {}, t.specialFeaturesNote));
  // Rule: say that some vendors rely on legitimate interest, and that the visitor may object.
  if (d.liVendors.length) nodes.push(h('p', { 'data-tcf-legitimate-interest': true }, t.legitimateInterest));

  // Not a TCF rule but the same promise: "Accept all" also grants the site's own purposes, so they are named.
  const own = config.purposes.filter((p) => !p.required).map((p) => purposeText(p, ctx.language).name);
  if (own.length) nodes.push(h('p', {}, `${t.ownPurposes} ${own.join(', ')}.`));

  // Rules: consent can be withdrawn at any time, and how; the scope of the choice (this site only).
  const withdraw = h(
    'p',
    { 'data-tcf-withdraw': true },
    fill(t.withdraw, { choices: strings.choices }),
    ' ',
    t.scope,
  );
  if (config.privacyPolicy.url)
    withdraw.append(' ', h('a', { href: config.privacyPolicy.url }, strings.policy));
  nodes.push(withdraw);
  // Signed in (docs/guides/signed-in-visitors.md): the scope of the choice is every device of the account.
  if (ctx.signedIn)
    nodes.push(h('p', { class: 'cs-note', 'data-consent-signed-in': true }, strings.signedIn));

  // Rule: calls to action visible, legible, with matching text treatment. One class and one style for
  // the three, so they have equal size, weight and contrast; none is pre-selected (focus is on the dialog).
  nodes.push(
    h(
      'div',
      { class: 'cs-actions' },
      button('accept-all', strings.accept),
      button('reject-all', strings.reject),
      button('customize', t.manage),
    ),
  );
  return nodes;
}
