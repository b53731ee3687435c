/**
 * Scoped under the banner's own attribute, with enough specificity to survive ordinary page CSS.
 * Accept and reject share one style (equal prominence); state is always said in text, never by
 * colour alone; focus is a thick outline that shows on dark and light controls.
 *
 * Theming (docs/guides/banner-theming.md): the site sets `--consent-*` custom properties anywhere above or
 * on the banner; the rules read private `--cs-*` ones that fall back to the light defaults, or to
 * the dark ones under `prefers-color-scheme: dark`. Both default palettes pass WCAG AA contrast.
 */
export const R = '[data-consent-banner]';

export const LIGHT =
  '--cs-bg:var(--consent-bg,#fff);--cs-fg:var(--consent-fg,#1a1a1a);--cs-accent:var(--consent-accent,#0b49b5);--cs-accent-fg:var(--consent-accent-fg,#fff);--cs-border:var(--consent-border,#767676);--cs-link:var(--consent-link,#0b49b5);--cs-focus:var(--consent-focus,#0b49b5)';
export const DARK =
  'color-scheme:dark;--cs-bg:var(--consent-bg,#1e1f22);--cs-fg:var(--consent-fg,#f1f1f1);--cs-accent:var(--consent-accent,#9cc1ff);--cs-accent-fg:var(--consent-accent-fg,#10141a);--cs-border:var(--consent-border,#8b949e);--cs-link:var(--consent-link,#9cc1ff);--cs-focus:var(--consent-focus,#9cc1ff)';

export const CSS = `${R}{${LIGHT};--cs-radius:var(--consent-radius,6px);--cs-font:var(--consent-font,system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif);--cs-size:var(--consent-font-size,15px);color-scheme:light;position:fixed;z-index:2147483647;left:0;right:0;bottom:0;max-height:100vh;overflow:auto;box-sizing:border-box;margin:0;padding:16px;background:var(--cs-bg);color:var(--cs-fg);border-top:2px solid var(--cs-border);box-shadow:0 -4px 24px rgba(0,0,0,.25);font:var(--cs-size)/1.45 var(--cs-font);text-align:left}
@media (prefers-color-scheme:dark){${R}{${DARK}}}
${R}:focus{outline:none}
${R} *{box-sizing:border-box;font:inherit;letter-spacing:normal}
${R} .cs-in{max-width:760px;margin:0 auto}
${R} h2{font-size:1.2em;font-weight:700;margin:0 0 8px;color:var(--cs-fg)}
${R} p{margin:0 0 12px;color:var(--cs-fg)}
${R} a{color:var(--cs-link);text-decoration:underline}
${R} .cs-note{border-left:4px solid var(--cs-accent);padding-left:8px}
${R} .cs-actions{display:flex;flex-wrap:wrap;gap:8px}
${R} .cs-btn{flex:1 1 150px;min-height:44px;margin:0;padding:10px 16px;border:2px solid var(--cs-accent);border-radius:var(--cs-radius);background:var(--cs-accent);color:var(--cs-accent-fg);font-weight:600;cursor:pointer;text-align:center;white-space:normal}
${R} .cs-btn.cs-alt{background:var(--cs-bg);color:var(--cs-fg)}
${R} .cs-btn:hover{text-decoration:underline}
${R} :focus-visible{outline:3px solid var(--cs-focus);outline-offset:2px;box-shadow:0 0 0 5px var(--cs-bg)}
${R} ul{list-style:none;margin:0 0 12px;padding:0}
${R} li{border-top:1px solid var(--cs-border);padding:10px 0}
${R} label{display:flex;align-items:center;gap:10px;font-weight:600;cursor:pointer;color:var(--cs-fg)}
${R} input[type=checkbox]{flex:none;width:20px;height:20px;margin:0;accent-color:var(--cs-accent)}
${R} li p{margin:4px 0 0 30px;font-size:.94em}
${R} .cs-req{font-weight:400}
@media (max-width:480px){${R}{padding:12px}${R} .cs-btn{flex-basis:100%}}`;
