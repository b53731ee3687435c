import { CHOICES } from '../choices.ts';
import { addStyle, button, floating, h } from '../dom.ts';
import type { SdkWords } from '../strings.ts';
import { CSS, DARK, LIGHT, R } from '../styles.ts';
import { NOTICE_EN } from './words.ts';

/**
 * The non-blocking UI of the notice-only and opt-out regimes: an informational notice,
 * dismissible, and in opt-out a persistent "Your Privacy Choices" button. Neither takes focus on
 * its own (they ask nothing); both are in the tab order and take the banner's `--consent-*` theme.
 * It is notice.js, loaded by sdk.js only for visitors of those regimes (notice-loader.ts).
 */
const NOTICE = '[data-consent-notice]';
const LINK = '[data-consent-choices]';

const LINK_CSS = `${LINK}{${LIGHT};position:fixed;z-index:2147483646;left:12px;bottom:12px;min-height:44px;margin:0;padding:8px 14px;border:2px solid var(--cs-border);border-radius:var(--consent-radius,6px);background:var(--cs-bg);color:var(--cs-link);font:600 14px/1.3 var(--consent-font,system-ui,sans-serif);text-decoration:underline;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}
@media (prefers-color-scheme:dark){${LINK}{${DARK}}}
${LINK}:focus-visible{outline:3px solid var(--cs-focus);outline-offset:2px}
${LINK} [data-consent-gpc]{display:block;font-weight:400;font-size:12px;text-decoration:none}
${LINK} svg{width:30px;height:14px;margin-right:8px;vertical-align:-2px}.cs-i1{fill:var(--consent-optout-icon,#06f)}.cs-i2{fill:var(--consent-optout-icon-fg,#fff)}`;

/**
 * The California "Your Privacy Choices" opt-out icon (CCPA regulations §7015(b)): a pill, a check on
 * its light half and a cross on its coloured half. Decorative beside the words, so hidden from
 * assistive technology; its two colours are themable (--consent-optout-icon, --consent-optout-icon-fg).
 */
const OPT_OUT_ICON =
  '<svg viewBox="0 0 30 14" aria-hidden="true" focusable="false"><path class="cs-i2" d="M7.4 12.8h6.8l3.1-11.6H7.4C4.2 1.2 1.6 3.8 1.6 7s2.6 5.8 5.8 5.8z"/><path class="cs-i1" d="M22.6 0H7.4c-3.9 0-7 3.1-7 7s3.1 7 7 7h15.2c3.9 0 7-3.1 7-7s-3.2-7-7-7zm-21 7c0-3.2 2.6-5.8 5.8-5.8h9.9l-3.2 11.6H7.4c-3.2 0-5.8-2.6-5.8-5.8z"/><path class="cs-i2" d="M24.6 4c.2.2.2.6 0 .8L22.5 7l2.2 2.2c.2.2.2.6 0 .8s-.6.2-.8 0l-2.2-2.2-2.2 2.2c-.2.2-.6.2-.8 0s-.2-.6 0-.8L20.8 7l-2.2-2.2c-.2-.2-.2-.6 0-.8s.6-.2.8 0l2.2 2.2L23.8 4c.2-.2.6-.2.8 0z"/><path class="cs-i1" d="M12.7 4.1c.2.2.3.6.1.8L8.6 9.8c-.1.1-.2.2-.3.2-.2.1-.5.1-.7-.1L5.4 7.7c-.2-.2-.2-.6 0-.8s.6-.2.8 0L8 8.6l3.8-4.5c.2-.2.6-.2.9 0z"/></svg>';

/** The banner's rules re-rooted on the notice: it looks like the banner and follows the same theme. */
const style = () => addStyle('cs-notice-style', CSS.split(R).join(NOTICE) + LINK_CSS);

export interface NoticeContext {
  strings: SdkWords;
  language: string;
  policyUrl: string | null;
  /** opt-out: the notice says optional purposes run until the visitor opts out, and offers the choices. */
  optOut: boolean;
  /** The GPC signal was recorded as the visitor's opt-out: the notice says so. */
  gpcHonored: boolean;
  onDismiss(): void;
}

/** One SDK instance's notice and "Your Privacy Choices" button. */
export interface Notice {
  show(ctx: NoticeContext): void;
  hide(): void;
  /**
   * The persistent "Your Privacy Choices" button, bottom left. Not added when the page has its own
   * `[data-consent-action="privacy-choices"]` element (a footer link, where CCPA sites usually put
   * it): the SDK opens the preferences from any such element. `honored` (the GPC signal was
   * honoured): the words that say so, on the button after its label (CCPA regs §7025(c)(6)); '' for none.
   */
  showChoicesLink(label: string, language: string, honored?: string): void;
  hideChoicesLink(): void;
}

/**
 * Whether focus was in the notice or on the button when they went away (dismissed, or replaced by
 * the preferences) is kept by the button's floating(): the next button shown takes it.
 */
export function createNotice(): Notice {
  const link = floating();
  let shown: HTMLElement | null = null;
  const hide = () => {
    link.keepFocus(shown);
    shown?.remove();
    shown = null;
  };
  return {
    show(ctx) {
      const s = { ...NOTICE_EN, ...ctx.strings };
      style();
      hide();
      const text = h('p', {}, s.notice);
      if (ctx.optOut) text.append(' ', s.optOut);
      if (ctx.policyUrl) text.append(' ', h('a', { href: ctx.policyUrl }, s.policy));
      // CCPA regs §7025(c)(6): the visitor can see that their browser's opt-out signal was processed.
      const honored = ctx.gpcHonored ? h('p', { 'data-consent-gpc': true }, s.gpcHonored) : '';
      const actions = h('div', { class: 'cs-actions' }, button('dismiss', s.dismiss));
      if (ctx.optOut) actions.prepend(button('privacy-choices', s.choices, true));
      // A labelled region, not a dialog: it informs and asks nothing, so it does not take focus.
      shown = h(
        'div',
        {
          'data-consent-notice': true,
          role: 'region',
          'aria-labelledby': 'cs-notice-title',
          lang: ctx.language,
        },
        h(
          'div',
          { class: 'cs-in' },
          h('h2', { id: 'cs-notice-title' }, s.noticeTitle),
          text,
          honored,
          actions,
        ),
      );
      shown.addEventListener('click', (event) => {
        if (!(event.target as Element).closest('[data-consent-action="dismiss"]')) return;
        hide();
        ctx.onDismiss();
      });
      document.body.append(shown);
    },
    hide,
    showChoicesLink(label, language, honored = '') {
      style();
      const own = Array.from(document.querySelectorAll(CHOICES)).some(
        (el) => !el.closest(`${NOTICE},${R},${LINK}`),
      );
      if (own) return;
      link.show(() => {
        const attrs = {
          type: 'button',
          lang: language,
          'data-consent-choices': true,
          'data-consent-action': 'privacy-choices',
        };
        const el = h('button', attrs);
        el.innerHTML = OPT_OUT_ICON; // a constant: no page or visitor data goes through innerHTML
        el.append(label);
        if (honored) el.append(h('span', { 'data-consent-gpc': true }, honored));
        return el;
      });
    },
    hideChoicesLink: link.hide,
  };
}
