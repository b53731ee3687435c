/**
 * The EU TCF v2 section of GPP (IAB GPP section 2, API prefix `tcfeuv2`), for visitors of TCF
 * channels in opt-in regions whose channel also has a gppCmpId. Its content is the TC string itself:
 * the section is a TCF v2 string by definition, so the section is set from the string tcf.js built
 * with @iabtechlabtcf/core, and @iabgpp/cmpapi decodes and re-encodes it. The GPP string and the
 * TC string then carry the same consents by construction; nothing is copied field by field.
 */
export const TCFEUV2 = 'tcfeuv2';
export const TCFEUV2_ID = 2;
