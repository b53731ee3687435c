import { gpcBlocks, initialToggle, purposeText } from './decisions.ts';
import { addStyle, button, type Dialog, h } from './dom.ts';
import { siblingHosts } from './siblings.ts';
import type { SdkWords } from './strings.ts';
import { CSS } from './styles.ts';
import type { Decisions, SiteConfig } from './types.ts';

export type View = 'banner' | 'customize';
export type Action = 'accept-all' | 'reject-all' | Record<string, boolean>;

export interface BannerContext {
  config: SiteConfig;
  language: string;
  strings: SdkWords;
  /** GPC locks gpcOptOut purposes off (opt-in and notice-only: the signal is the visitor's answer). */
  gpc: boolean;
  /**
   * Opt-out regions: the signal was honored as an opt-out, and the visitor may still opt back in, so
   * the toggles stay free and the view says so in the regulation's words (CCPA regs §7025(c)(6)).
   */
  gpcHonored?: boolean;
  /** The earlier decision, to prefill the customize view (read only when it is drawn). */
  previous(): Decisions | null;
  /** The receipt URL of the last delivered decision, linked from the customize view; null: none yet. */
  receipt(): string | null;
  /** A signed-in visitor: the first layer says the choice applies wherever they are signed in. */
  signedIn?: boolean;
  onAction(action: Action): void;
}

function intro(ctx: BannerContext, title: string, body: string) {
  const { strings, config } = ctx;
  const text = h('p', { id: 'cs-consent-desc' }, body);
  if (config.privacyPolicy.url) text.append(' ', h('a', { href: config.privacyPolicy.url }, strings.policy));
  const nodes: Node[] = [h('h2', { id: 'cs-consent-title' }, title), text];
  const covered = config.purposes.some((p) => p.gpcOptOut && !p.required);
  if (covered && (ctx.gpc || ctx.gpcHonored)) {
    nodes.push(h('p', { class: 'cs-note' }, ctx.gpcHonored ? strings.gpcHonored : strings.gpc));
  }
  if (ctx.signedIn)
    nodes.push(h('p', { class: 'cs-note', 'data-consent-signed-in': true }, strings.signedIn));
  // Sibling domains (crossDomain): the visitor is told where else this choice will hold.
  const hosts = siblingHosts(config, location.origin);
  if (hosts.length)
    nodes.push(
      h('p', { class: 'cs-note', 'data-consent-siblings': true }, `${strings.alsoOn} ${hosts.join(', ')}`),
    );
  return nodes;
}

function purposeList(ctx: BannerContext) {
  const list = h('ul');
  const previous = ctx.previous();
  ctx.config.purposes.forEach((purpose, i) => {
    const text = purposeText(purpose, ctx.language);
    const descId = `cs-consent-p${i}`;
    const box = h('input', {
      type: 'checkbox',
      'data-consent-purpose': purpose.key,
      checked: initialToggle(purpose, previous, ctx.gpc),
      disabled: purpose.required || gpcBlocks(purpose, ctx.gpc),
      'aria-describedby': descId,
    });
    const label = h('label', {}, box, h('span', {}, text.name));
    // Why a toggle cannot be changed is said in words next to it, not by a greyed-out look alone.
    const fixed = purpose.required
      ? ctx.strings.required
      : gpcBlocks(purpose, ctx.gpc)
        ? ctx.strings.gpcOff
        : '';
    if (fixed) label.append(h('span', { class: 'cs-req' }, fixed));
    const details = h('p', { id: descId }, text.description);
    const techs = ctx.config.technologies.filter((t) => t.purposeKeys.includes(purpose.key));
    if (techs.length) {
      const names = techs.map((t) => (t.vendor ? `${t.name} (${t.vendor})` : t.name)).join(', ');
      details.append(text.description ? ' ' : '', `${ctx.strings.usedBy}: ${names}.`);
    }
    list.append(h('li', {}, label, details));
  });
  return list;
}

/**
 * "Your receipt": what the service recorded, which the visitor can verify (docs/receipts.md). A new tab,
 * so the choices stay open here; noopener and noreferrer, so neither page can reach the other.
 */
function receiptLink(ctx: BannerContext) {
  const receipt = ctx.receipt();
  if (!receipt) return [];
  const { strings } = ctx;
  const attrs = { href: receipt, target: '_blank', rel: 'noopener noreferrer', 'data-consent-receipt': true };
  return [h('p', {}, h('a', attrs, strings.receipt), ' ', strings.newTab)];
}

function render(root: HTMLElement, ctx: BannerContext, view: View) {
  const s = ctx.strings;
  const content =
    view === 'banner'
      ? [
          ...intro(ctx, s.title, s.body),
          h(
            'div',
            { class: 'cs-actions' },
            button('reject-all', s.reject),
            button('accept-all', s.accept),
            button('customize', s.customize, true),
          ),
        ]
      : [
          ...intro(ctx, s.prefsTitle, s.prefsBody),
          purposeList(ctx),
          ...receiptLink(ctx),
          h(
            'div',
            { class: 'cs-actions' },
            button('reject-all', s.reject),
            button('accept-all', s.accept),
            button('save', s.save, true),
          ),
        ];
  root.textContent = '';
  root.setAttribute('data-consent-view', view);
  root.append(h('div', { class: 'cs-in' }, ...content));
}

/**
 * Focus goes into the dialog, not onto a button: the first Tab then reaches every choice in order,
 * none pre-picked. Moving focus makes the browser lay the page out at once; for the banner shown
 * as the page loads that would be the page's first layout, inside the SDK's task (measured: 30–50 ms
 * of a 130–150 ms task on a 4× slowed CPU). So it waits until the first frame with the banner has
 * been drawn (laid out as part of that frame), and is skipped if the visitor has put focus
 * somewhere meanwhile (or the banner was closed or replaced: `el` is no longer in the page).
 */
function focusInto(el: HTMLElement, now: boolean) {
  if (now) return el.focus();
  const before = document.activeElement;
  requestAnimationFrame(() =>
    setTimeout(() => {
      if (el.isConnected && document.activeElement === before) el.focus();
    }, 0),
  );
}

function onClick(el: HTMLElement, ctx: BannerContext, event: Event) {
  const target = (event.target as Element).closest('[data-consent-action]');
  const action = target?.getAttribute('data-consent-action');
  if (action === 'customize') {
    render(el, ctx, 'customize');
    focusInto(el, true);
  } else if (action === 'accept-all' || action === 'reject-all') ctx.onAction(action);
  else if (action === 'save') {
    const choice: Record<string, boolean> = {};
    for (const box of Array.from(el.querySelectorAll<HTMLInputElement>('input[data-consent-purpose]'))) {
      choice[box.getAttribute('data-consent-purpose') as string] = box.checked;
    }
    ctx.onAction(choice);
  }
}

/**
 * Shows the banner (or its customize view) in `ui`, one SDK instance's dialog root, replacing one
 * already open there; `ui.close()` hides it. Needs document.body.
 */
export function showBanner(ui: Dialog, ctx: BannerContext, view: View): void {
  addStyle('cs-consent-style', CSS);
  const el = ui.open(
    {
      'aria-labelledby': 'cs-consent-title',
      'aria-describedby': 'cs-consent-desc',
      lang: ctx.language,
    },
    (event) => onClick(el, ctx, event),
  );
  render(el, ctx, view);
  // A view the visitor asked for (the preferences) takes focus at once; the page is laid out by then.
  focusInto(el, view !== 'banner');
}
