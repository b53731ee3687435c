/**
 * @consent-service/browser: the consent SDK as a module. `createConsent` is the function the
 * snippet's sdk.js starts (sdk/src/index.ts), bundled from the same source, so the package and the
 * snippet cannot drift.
 */
export { type ConsentOptions, createConsent } from '../../../sdk/src/consent.ts';
export type {
  ConsentApi,
  ConsentListener,
  Decision,
  Decisions,
  Purpose,
  Regime,
  SiteConfig,
  TcfConfig,
  Technology,
} from '../../../sdk/src/types.ts';
