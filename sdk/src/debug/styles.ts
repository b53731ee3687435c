/**
 * The panel's style sheet, inside its shadow root: the page's CSS cannot reach it, and it cannot
 * reach the page. One light palette that passes WCAG AA contrast; a state is always said in words,
 * never by colour alone. Below the banner (one z-index less), so the banner stays usable under it.
 */
export const PANEL_CSS = `:host{all:initial}
.p{position:fixed;z-index:2147483646;top:8px;right:8px;width:min(440px,calc(100vw - 16px));max-height:calc(100vh - 16px);overflow:auto;box-sizing:border-box;padding:12px 14px;background:#fff;color:#1a1a1a;border:2px solid #0b49b5;border-radius:6px;box-shadow:0 4px 24px rgba(0,0,0,.3);font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;text-align:left;overflow-wrap:anywhere}
.p *{box-sizing:border-box;font:inherit;letter-spacing:normal}
.p:focus{outline:none}
.p h2{font-size:1.15em;font-weight:700;margin:0 0 2px}
.p h3{font-size:1em;font-weight:700;margin:12px 0 4px;padding-top:8px;border-top:1px solid #767676}
.p p{margin:0 0 6px}
.p .k{color:#4a4a4a;font-size:.93em}
.p dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0}
.p dt{font-weight:600}
.p dd{margin:0}
.p ul,.p ol{margin:0;padding:0;list-style:none}
.p li{padding:3px 0;border-bottom:1px solid #e3e3e3}
.p .s{font-weight:700}
.p .ok{color:#0a6b2d}
.p .no{color:#8a1c1c}
.p .row{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0 0}
.p button{min-height:36px;margin:0;padding:6px 12px;border:2px solid #0b49b5;border-radius:6px;background:#0b49b5;color:#fff;font-weight:600;cursor:pointer}
.p button.alt{background:#fff;color:#0b49b5}
.p button:hover{text-decoration:underline}
:focus-visible{outline:3px solid #0b49b5;outline-offset:2px;box-shadow:0 0 0 5px #fff}
.p label{display:block;font-weight:600;margin:10px 0 4px}
.p input{min-height:36px;width:10em;margin:0;padding:6px 8px;border:2px solid #767676;border-radius:6px;background:#fff;color:#1a1a1a}
.p .err{color:#8a1c1c;font-weight:600}
.p .log{max-height:14em;overflow:auto}
.p time{font-variant-numeric:tabular-nums;color:#4a4a4a;margin-right:6px}
@media (max-width:480px){.p{top:4px;right:4px;width:calc(100vw - 8px);max-height:55vh}}`;
