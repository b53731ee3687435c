import { R } from '../../styles.ts';

const T = `${R}[data-consent-tcf]`;

/**
 * Added to the SDK's banner styles (same theme variables, same buttons). A fixed overlay at the
 * bottom that never moves the page (no layout shift), with text no larger than the page's body, no
 * web fonts and no images, in short blocks (so no block of it outgrows the page's own content as
 * the Largest Contentful Paint). The purpose list runs in two columns where there is room, so the
 * whole first layer is usually visible at once. Where it is not (a phone), the layer scrolls and the
 * calls to action come at its end, after everything the policy asks the visitor to read first: a
 * bar pinned over the layer would hide text not yet read, which IAB's reviewers flag.
 */
export const TCF_CSS = `${T}{padding-bottom:0}
${T}[data-consent-view=banner]{font-size:calc(var(--cs-size)*.93)}
${T} .cs-actions{padding:10px 0 16px}
${T} h3{font-size:1.05em;font-weight:700;margin:16px 0 6px;color:var(--cs-fg)}
${T} .cs-tcf-names{list-style:disc;padding-left:20px;columns:2 260px;column-gap:32px}
${T} .cs-tcf-names li{border:0;padding:1px 0;break-inside:avoid}
${T} .cs-tcf-link{display:inline;margin:0;padding:0;border:0;background:none;color:var(--cs-link);text-decoration:underline;cursor:pointer;text-align:left}
${T} .cs-tcf-name{display:block;font-weight:700}
${T} li p{margin:4px 0 0}
${T} .cs-tcf-toggles{display:flex;flex-wrap:wrap;gap:6px 20px;margin-top:6px}
${T} .cs-tcf-toggle{font-weight:400}
${T} details{margin-top:6px}
${T} summary{cursor:pointer;color:var(--cs-link);text-decoration:underline}
${T} details p{font-size:.94em}
${T} .cs-tcf-ill li{border:0;padding:2px 0;font-size:.94em}`;
