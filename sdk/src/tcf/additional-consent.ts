import { h } from '../dom.ts';
import { itemName, sectionHeading, toggle } from './layers/controls.ts';
import type { LayerContext } from './layers/index.ts';

/**
 * The second layer's list of the channel's Google ATP providers, each with a consent toggle (off
 * until switched on, or as the visitor chose before).
 */
export function acSection(ctx: LayerContext): Node[] {
  const ac = ctx.config.tcf?.googleAdditionalConsent;
  const providers = ac?.providerIds ?? [];
  if (!providers.length) return [];
  const list = h('ul');
  for (const id of providers) {
    const nameId = `cs-tcf-ac${id}`;
    const on = ctx.previous?.acConsents?.includes(id) ?? false;
    // Named as Google's ATP list names it; by id when the service had no name for it.
    const known = ac?.providers?.find((p) => p.id === id);
    const policy = known?.policyUrl;
    list.append(
      h(
        'li',
        { 'data-tcf-ac-provider-item': String(id) },
        itemName(nameId, known?.name ?? `${ctx.t.acProvider} ${id}`),
        policy
          ? h(
              'a',
              { href: policy, target: '_blank', rel: 'noopener noreferrer' },
              ctx.strings.policy,
              ` ${ctx.strings.newTab}`,
            )
          : '',
        h('div', { class: 'cs-tcf-toggles' }, toggle('data-tcf-ac-provider', id, ctx.t.consent, nameId, on)),
      ),
    );
  }
  return [sectionHeading('cs-tcf-ac', ctx.t.acHeading), h('p', {}, ctx.t.acIntro), list];
}
