/**
 * @consent-service/core: the consent client with no DOM, for React Native, Node and browsers. The
 * app draws the banner; this client says whether to ask, records the choice and keeps it.
 */
export { createConsentClient } from './client.ts';
export type {
  ChangeListener,
  ConsentClient,
  ConsentClientOptions,
  ConsentStorage,
  DecideOptions,
  Decision,
  Decisions,
  DecisionsInput,
  DefaultsWriter,
  FetchLike,
  FetchResponse,
  Platform,
  SiteConfig,
  TcfVendorChoice,
  TcfView,
  VendorListJson,
} from './types.ts';
export { SDK_VERSION } from './version.ts';
