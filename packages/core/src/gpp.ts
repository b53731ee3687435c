import { GppModel } from '@iabgpp/cmpapi';
import { setSectionFields, usSectionFields } from '../../../sdk/src/gpp/section-fields.ts';
import { TCFEUV2, TCFEUV2_ID } from '../../../sdk/src/gpp/tcfeuv2.ts';
import { gppApplies } from '../../../sdk/src/gpp-applies.ts';
import type { Decisions, SiteConfig } from '../../../sdk/src/types.ts';
import { gppSectionFor } from '../../../src/shared/us-gpp-sections.ts';

/** The one GPP section a device's string carries, by IAB's id and API prefix. */
export interface GppSection {
  id: number;
  name: string;
}

/**
 * Which GPP section this device gets, by the web's rules: a visitor of a US opt-out region on a
 * channel with a gppCmpId gets US National, or under `gppSections: "state"` the state's own section
 * (gpp-applies.ts, src/shared/us-gpp-sections.ts: sdk.js loads gpp.js for them); a TCF channel's
 * opt-in visitor on a channel with a gppCmpId gets the EU TCF section (tcf.js loads gpp.js for
 * them). Null for everyone else: no GPP.
 */
export function gppSectionOf(config: SiteConfig): GppSection | null {
  if (gppApplies(config)) return gppSectionFor(config.gppSections, config.region?.code);
  if (config.tcf && config.gppCmpId) return { id: TCFEUV2_ID, name: TCFEUV2 };
  return null;
}

/**
 * The GPP string of a US section for the device's state, encoded by `@iabgpp/cmpapi`'s GppModel
 * (the model CmpApi encodes with on the web) from the fields gpp.js sets (section-fields.ts), so
 * the app's string is the web's for the same decisions. Apps send no GPC signal.
 */
export function usGppString(section: GppSection, decisions: Decisions | null, config: SiteConfig): string {
  const model = new GppModel();
  setSectionFields(model, section.name, usSectionFields(section.name, decisions, config.purposes, false));
  return model.encode();
}

/**
 * The GPP string carrying a TC string as its EU TCF section, as gpp.js makes it for tcf.js: the
 * library decodes the TC string into the section and encodes it back, so both say the same.
 */
export function tcfEuGppString(tcString: string): string {
  const model = new GppModel();
  model.decodeSection(TCFEUV2, tcString);
  return model.encode();
}

/**
 * The device's GPP string now: its US section's for the decisions in force (opt-out regions have
 * them before any choice: the regime's defaults, as the web's __gpp answers), or the EU TCF
 * section's for the TC string of a decision that holds; null without GPP or without a TC string.
 */
export function gppStringNow(
  section: GppSection | null,
  config: SiteConfig,
  decisions: Decisions | null,
  tcString: string | null,
): string | null {
  if (!section) return null;
  if (section.name === TCFEUV2) return tcString ? tcfEuGppString(tcString) : null;
  return usGppString(section, decisions, config);
}
