import { addStyle, floating, h } from '../dom.ts';
import { DARK, LIGHT } from '../styles.ts';

/**
 * The reopen control of TCF channels (the channel's `reopenControl`, "floating" unless set to
 * "none"): after a decision in the layers, a persistent button at the bottom left named as the
 * first layer's withdrawal sentence names it ("Your Privacy Choices"), so a visitor can change or
 * withdraw their choice as easily as they gave it (TCF policy: withdrawal as easy as consent),
 * on every page, even where the publisher added no link of their own.
 *
 * It carries `data-consent-action="privacy-choices"`, the attribute the SDK already opens the
 * preferences from (any page's own link works the same way): a click opens "Manage options"
 * through the SDK, so the choice made there is recorded as every preference-center choice is. It
 * lives in tcf.js, so visitors of other channels load none of it.
 *
 * Accessible: a real button in the tab order, labelled by its visible text, with the page's
 * language, a 44 px target and a visible focus ring. Themable with the banner's variables
 * (`--consent-bg`, `--consent-fg`, `--consent-link`, `--consent-border`, `--consent-focus`,
 * `--consent-radius`, `--consent-font`), and placed with `--consent-reopen-left` and
 * `--consent-reopen-bottom`.
 */
const SELECTOR = '[data-consent-reopen]';

const CSS = `${SELECTOR}{${LIGHT};position:fixed;z-index:2147483646;left:var(--consent-reopen-left,12px);bottom:var(--consent-reopen-bottom,12px);min-height:44px;margin:0;padding:8px 14px;border:2px solid var(--cs-border);border-radius:var(--consent-radius,6px);background:var(--cs-bg);color:var(--cs-link);font:600 14px/1.3 var(--consent-font,system-ui,sans-serif);text-decoration:underline;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}
@media (prefers-color-scheme:dark){${SELECTOR}{${DARK}}}
${SELECTOR}:focus-visible{outline:3px solid var(--cs-focus);outline-offset:2px}`;

/** One tcf.js start's reopen control; focus on it when the layers replaced it comes back to the next one. */
export interface ReopenControl {
  show(label: string, language: string): void;
  hide(): void;
}

export function createReopenControl(): ReopenControl {
  const control = floating();
  return {
    show(label, language) {
      addStyle('cs-reopen-style', CSS);
      control.show(() =>
        h(
          'button',
          {
            type: 'button',
            lang: language,
            'data-consent-reopen': true,
            'data-consent-action': 'privacy-choices',
          },
          label,
        ),
      );
    },
    hide: control.hide,
  };
}
