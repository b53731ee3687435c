import { acString, parseAcString } from '../../../src/shared/additional-consent.ts';
import { h } from '../dom.ts';
import type { TcfConfig } from '../types.ts';
import { itemName, sectionHeading, toggle } from './layers/controls.ts';
import type { LayerContext } from './layers/index.ts';

/**
 * Google's Additional Consent (version 2) for the channel's providers of Google's Ad Tech Providers
 * list: `2~<consented ids>~dv.<disclosed ids>`, ids dot-separated, a consented provider not listed
 * again as disclosed. Every provider of the channel is disclosed (the layers list them all).
 */
export function acStringOf(
  tcf: Pick<TcfConfig, 'googleAdditionalConsent'>,
  consented: number[],
  /** The providers the visitor was shown (a kept choice's); absent: all of the channel's. */
  shown?: number[],
): string | undefined {
  const providers = tcf.googleAdditionalConsent?.providerIds?.filter((id) => !shown || shown.includes(id));
  if (!providers?.length) return undefined;
  return acString(
    providers.filter((id) => consented.includes(id)),
    providers,
  );
}

const parsed = (ac: string | undefined) => (ac ? parseAcString(ac) : null);

/** The provider ids an AC string of ours consents to ([] for none or another string). */
export function acConsentsOf(ac: string | undefined): number[] {
  return parsed(ac)?.consented ?? [];
}

/** Every provider an AC string of ours names (consented or disclosed): those the visitor was shown. */
export function acShownOf(ac: string | undefined): number[] {
  const found = parsed(ac);
  return found ? [...found.consented, ...found.disclosed] : [];
}

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
