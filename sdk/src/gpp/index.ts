import { startGpp } from './cmp.ts';

/**
 * The lazily loaded GPP bundle (`gpp.js`): only visitors of US opt-out regions on channels with a
 * gppCmpId load it, because `@iabgpp/cmpapi` alone is larger than the whole SDK's budget. It only
 * registers itself; the SDK's gpp-loader.ts starts it with the channel's CMP id.
 */
(window as unknown as { __consentServiceGpp?: unknown }).__consentServiceGpp = { start: startGpp };
