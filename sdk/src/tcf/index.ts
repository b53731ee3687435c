import { startTcf } from './cmp.ts';

/**
 * The lazily loaded TCF bundle (`tcf.js`): only opt-in visitors of TCF channels load it, since IAB
 * Tech Lab's CMP API and encoder, with the two layers, weigh more than the whole SDK. It only
 * registers itself; the SDK's tcf-loader.ts starts it with the visitor's config and language.
 */
(window as unknown as { __consentServiceTcf?: unknown }).__consentServiceTcf = { start: startTcf };
