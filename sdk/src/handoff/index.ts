import { arrive } from './arrive.ts';
import { followLinks } from './follow.ts';

/** handoff.js: registers the handoff for sdk.js, which loads it on crossDomain channels (handoff-loader.ts). */
(window as unknown as { __consentServiceHandoff: unknown }).__consentServiceHandoff = { arrive, followLinks };
