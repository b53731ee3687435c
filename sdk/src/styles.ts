/**
 * Scoped under the banner's own attribute, with enough specificity to survive ordinary page CSS.
 * Accept and reject share one style (equal prominence); state is always said in text, never by
 * colour alone; focus is a thick outline that shows on dark and light controls.
 */
const R = '[data-consent-banner]';

export const CSS = `${R}{position:fixed;z-index:2147483647;left:0;right:0;bottom:0;max-height:100vh;overflow:auto;box-sizing:border-box;margin:0;padding:16px;background:#fff;color:#111;border-top:2px solid #111;box-shadow:0 -4px 24px rgba(0,0,0,.25);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;text-align:left}
${R} *{box-sizing:border-box;font:inherit;letter-spacing:normal}
${R} .cs-in{max-width:760px;margin:0 auto}
${R} h2{font-size:18px;font-weight:700;margin:0 0 8px;color:#111}
${R} p{margin:0 0 12px;color:#111}
${R} a{color:#0b49b5;text-decoration:underline}
${R} .cs-note{border-left:4px solid #111;padding-left:8px}
${R} .cs-actions{display:flex;flex-wrap:wrap;gap:8px}
${R} .cs-btn{flex:1 1 150px;min-height:44px;margin:0;padding:10px 16px;border:2px solid #111;border-radius:6px;background:#111;color:#fff;font-weight:600;cursor:pointer;text-align:center;white-space:normal}
${R} .cs-btn.cs-alt{background:#fff;color:#111}
${R} .cs-btn:hover{text-decoration:underline}
${R} :focus-visible,${R}:focus-visible{outline:3px solid #0b49b5;outline-offset:2px;box-shadow:0 0 0 5px #fff}
${R} ul{list-style:none;margin:0 0 12px;padding:0}
${R} li{border-top:1px solid #bbb;padding:10px 0}
${R} label{display:flex;align-items:center;gap:10px;font-weight:600;cursor:pointer}
${R} input[type=checkbox]{flex:none;width:20px;height:20px;margin:0;accent-color:#111}
${R} li p{margin:4px 0 0 30px;font-size:14px}
${R} .cs-req{font-weight:400}
@media (max-width:480px){${R}{padding:12px}${R} .cs-btn{flex-basis:100%}}`;
