/**
 * GPP (IAB Global Privacy Platform, docs/decisions/gpp-decoding.md): the check of a decision's GPP
 * string (gpp.ts, decoded in child processes by gpp-decoder.ts) and the stub a GPP channel's
 * snippet carries (gpp-stub.ts). What other modules use of it.
 */
export { gppDecodeError, TCF_EU_SECTION_ID, tcfEuSection } from './gpp.ts';
export { createGppDecoder, type GppDecoder, type GppOwner } from './gpp-decoder.ts';
export { gppStub } from './gpp-stub.ts';
