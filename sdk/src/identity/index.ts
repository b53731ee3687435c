import { fetchAccountChoice, reconcile } from './account.ts';

/** identity.js: registers the sign-in for sdk.js, which loads it for signed-in visitors (identity-loader.ts). */
(window as unknown as { __consentServiceIdentity: unknown }).__consentServiceIdentity = {
  fetchAccountChoice,
  reconcile,
};
