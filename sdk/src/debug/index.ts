import { openPanel } from './panel.ts';

/** debug.js: registers the developer panel for sdk.js, which loads it on test channels (debug-loader.ts). */
(window as unknown as { __consentServiceDebug: unknown }).__consentServiceDebug = openPanel;
