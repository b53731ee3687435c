/**
 * The content hashes of the lazily loaded bundles this build goes with, put here by the build
 * (sdk/build.ts, esbuild's `define`): `…/gpp.js?v=<hash>` is then one immutable version that a
 * browser keeps for a year and never revalidates; a new build names a new URL. Built without them
 * (a bundler of the npm package), the plain URL is used, which caches for minutes.
 */
declare const __CONSENT_GPP_VERSION__: string | undefined;
declare const __CONSENT_TCF_VERSION__: string | undefined;

const versioned = (url: string, version: string | undefined) => (version ? `${url}?v=${version}` : url);

/** gpp.js for a site (`site`: `…/v1/public/sites/<siteKey>`). */
export const gppUrl = (site: string) =>
  versioned(
    `${site}/gpp.js`,
    typeof __CONSENT_GPP_VERSION__ === 'string' ? __CONSENT_GPP_VERSION__ : undefined,
  );

/** tcf.js for a site. */
export const tcfUrl = (site: string) =>
  versioned(
    `${site}/tcf.js`,
    typeof __CONSENT_TCF_VERSION__ === 'string' ? __CONSENT_TCF_VERSION__ : undefined,
  );
