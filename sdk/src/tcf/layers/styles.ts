import { R } from '../../styles.ts';

const T = `${R}[data-consent-tcf]`;

/**
 * Added to the SDK's banner styles (same theme variables, same buttons). The first layer is capped
 * at half the viewport and scrolls inside itself: a fixed overlay that never covers the page's main
 * content nor moves it, with text no larger than the page's body (no web fonts, no images), so it
 * neither becomes the Largest Contentful Paint nor shifts layout. "Manage options" may take the
 * whole height, as the banner's customize view does.
 */
export const TCF_CSS = `${T}[data-consent-view=banner]{max-height:50vh;font-size:calc(var(--cs-size)*.93)}
${T} h3{font-size:1.05em;font-weight:700;margin:16px 0 6px;color:var(--cs-fg)}
${T} .cs-tcf-names{list-style:disc;padding-left:20px}
${T} .cs-tcf-names li{border:0;padding:1px 0}
${T} .cs-tcf-link{display:inline;margin:0;padding:0;border:0;background:none;color:var(--cs-link);text-decoration:underline;cursor:pointer;text-align:left}
${T} .cs-tcf-name{display:block;font-weight:700}
${T} li p{margin:4px 0 0}
${T} .cs-tcf-toggles{display:flex;flex-wrap:wrap;gap:6px 20px;margin-top:6px}
${T} .cs-tcf-toggle{font-weight:400}
${T} details{margin-top:6px}
${T} summary{cursor:pointer;color:var(--cs-link);text-decoration:underline}
${T} details p{font-size:.94em}
${T} .cs-tcf-ill li{border:0;padding:2px 0;font-size:.94em}`;
