/**
 * The lazily loaded pieces of the SDK, each a bundle of its own that `…/<piece>.js` serves
 * (sdk/build.ts builds them): sdk.js carries none of their bytes, and loads each only for the
 * visitors and channels that need it.
 *
 * - gpp: the IAB GPP CMP API, for US opt-out visitors of channels with a gppCmpId;
 * - tcf: the IAB TCF CMP API and its layers, for opt-in visitors of TCF channels;
 * - notice: the notice and the "Your Privacy Choices" button of the notice-only and opt-out regimes;
 * - handoff: the choice handed to a sibling domain, and taken from one (crossDomain);
 * - import: another CMP's cookie read into a decision (imports);
 * - identity: a signed-in visitor's account choice (docs/guides/signed-in-visitors.md);
 * - debug: the developer panel, on test channels only (docs/guides/developer-panel.md).
 */
export type Piece = 'gpp' | 'tcf' | 'notice' | 'handoff' | 'import' | 'identity' | 'debug';

/**
 * The content hashes of the pieces this build goes with, put here by the build (esbuild's
 * `define`): `…/gpp.js?v=<hash>` is then one immutable version that a browser keeps for a year and
 * never revalidates; a new build names a new URL. Built without them (a bundler of the npm
 * package), the plain URL is used, which caches for minutes; debug.js always goes by its plain URL
 * (sdk/build.ts: a hash in sdk.js would cost every visitor bytes for the developers' panel).
 */
declare const __CONSENT_VERSIONS__: Partial<Record<Piece, string>> | undefined;

/** A piece's URL for a site (`site`: `…/v1/public/sites/<siteKey>`). */
export function pieceUrl(site: string, piece: Piece): string {
  const version = typeof __CONSENT_VERSIONS__ === 'object' ? __CONSENT_VERSIONS__[piece] : undefined;
  return `${site}/${piece}.js${version ? `?v=${version}` : ''}`;
}
