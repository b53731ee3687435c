import type { GVL } from '@iabtechlabtcf/core';
import { addStyle, type Dialog, dialog, h } from '../../dom.ts';
import type { SdkWords } from '../../strings.ts';
import { CSS } from '../../styles.ts';
import type { Decisions, SiteConfig } from '../../types.ts';
import { acceptAll, rejectAll } from './all-or-nothing.ts';
import { type Disclosure, disclosureOf } from './disclosure.ts';
import { firstLayer } from './first-layer.ts';
import { secondLayer } from './second-layer.ts';
import { type TcfStrings, tcfStringsFor } from './strings.ts';
import { TCF_CSS } from './styles.ts';
import type { TcfChoice } from './types.ts';

export type { TcfChoice };
export { acceptAll, rejectAll };

/**
 * The two TCF layers (IAB TCF policy, Appendix B): the first layer a visitor sees, and "Manage
 * options" with every purpose, feature and vendor. They draw the UI and report the visitor's choice
 * (types.ts); tcf.js turns it into a TC string and the channel's own decisions.
 */
export type TcfAction = 'accept-all' | 'reject-all' | 'save';

export interface TcfLayersContext {
  /** The channel's slice of the vendor list, in the visitor's language. */
  gvl: GVL;
  config: SiteConfig;
  language: string;
  strings: SdkWords;
  /** The visitor's earlier choice, to prefill "Manage options"; null: defaults. */
  previous: TcfChoice | null;
  view: 'banner' | 'customize';
  /** The slice's `standardTexts` (TCF v2.4), in the layers' language; absent before v2.4 lists. */
  standardTexts?: unknown;
  /** A signed-in visitor: the first layer says the choice applies wherever they are signed in. */
  signedIn?: boolean;
  onChoice(choice: TcfChoice, action: TcfAction): void;
}

/** What the renderers of both layers read. */
export interface LayerContext extends TcfLayersContext {
  disclosure: Disclosure;
  t: TcfStrings;
}

/** The ids of the checked boxes carrying `attr` (a toggle that is absent is not allowed). */
function checked(root: HTMLElement, attr: string): number[] {
  const boxes = Array.from(root.querySelectorAll<HTMLInputElement>(`input[${attr}]`));
  return boxes.filter((b) => b.checked).map((b) => Number(b.getAttribute(attr)));
}

/** "Save": what the toggles of "Manage options" say. */
function fromToggles(root: HTMLElement, config: SiteConfig): TcfChoice {
  const decisions: Decisions = {};
  for (const p of config.purposes) {
    const box = root.querySelector<HTMLInputElement>(`input[data-consent-purpose="${p.key}"]`);
    decisions[p.key] = p.required || box?.checked ? 'granted' : 'denied';
  }
  return {
    purposeConsents: checked(root, 'data-tcf-purpose-consent'),
    purposeLegitimateInterests: checked(root, 'data-tcf-purpose-li'),
    vendorConsents: checked(root, 'data-tcf-vendor-consent'),
    vendorLegitimateInterests: checked(root, 'data-tcf-vendor-li'),
    specialFeatureOptins: checked(root, 'data-tcf-special-feature'),
    decisions,
    acConsents: checked(root, 'data-tcf-ac-provider'),
  };
}

function render(root: HTMLElement, ctx: LayerContext, view: 'banner' | 'customize', focus?: string) {
  root.textContent = '';
  root.setAttribute('data-consent-view', view);
  root.setAttribute('aria-labelledby', view === 'banner' ? 'cs-tcf-title' : 'cs-tcf-manage-title');
  root.append(h('div', { class: 'cs-in' }, ...(view === 'banner' ? firstLayer(ctx) : secondLayer(ctx))));
  root.scrollTop = 0;
  // Into the dialog, not onto a choice: the first Tab then walks every choice in order, none pre-picked.
  const target = (focus && root.querySelector<HTMLElement>(focus)) || root;
  target.focus();
}

function onClick(root: HTMLElement, ctx: LayerContext, event: Event) {
  const target = (event.target as Element).closest('[data-consent-action],[data-tcf-show]');
  if (!target) return;
  if (target.getAttribute('data-tcf-show') === 'vendors') {
    render(root, ctx, 'customize', '#cs-tcf-vendors');
    return;
  }
  const action = target.getAttribute('data-consent-action');
  // The string says which layer the choice was made on: 1 the first, 2 "Manage options".
  const consentScreen = root.getAttribute('data-consent-view') === 'banner' ? 1 : 2;
  const choose = (choice: TcfChoice, made: TcfAction) => ctx.onChoice({ ...choice, consentScreen }, made);
  if (action === 'customize') render(root, ctx, 'customize');
  else if (action === 'accept-all') choose(acceptAll(ctx.disclosure, ctx.config), action);
  else if (action === 'reject-all') choose(rejectAll(ctx.config), action);
  else if (action === 'save') choose(fromToggles(root, ctx.config), action);
}

/** One tcf.js start's layers: their own dialog root, as each SDK instance has its own banner. */
export interface TcfLayers {
  /**
   * Shows the layers (replacing any open), as the SDK's banner does: a labelled, non-blocking dialog
   * fixed at the bottom, focus moved into it and given back on close. Needs document.body.
   */
  show(options: TcfLayersContext): void;
  hide(restoreFocus?: boolean): void;
}

export function createTcfLayers(): TcfLayers {
  const ui: Dialog = dialog();
  return {
    show(options) {
      addStyle('cs-consent-style', CSS);
      addStyle('cs-consent-tcf-style', TCF_CSS);
      const ctx: LayerContext = {
        ...options,
        disclosure: disclosureOf(options.gvl, {
          purposeOneTreatment: options.config.tcf?.purposeOneTreatment,
        }),
        t: tcfStringsFor(options.language),
      };
      const root = ui.open({ 'data-consent-tcf': true, lang: options.language }, (event) =>
        onClick(root, ctx, event),
      );
      render(root, ctx, options.view);
    },
    hide: ui.close,
  };
}
