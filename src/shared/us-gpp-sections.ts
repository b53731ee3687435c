/**
 * Which IAB GPP section a visitor of a US opt-out region gets (docs/guides/us-privacy.md). A channel's
 * `gppSections` is "usnat" (the default: every US visitor gets the US National section) or "state":
 * a visitor in a state that has its own section in IAB's GPP specification gets that section, and
 * everyone else usnat. The table is the sections `@iabgpp/cmpapi` 3.2 encodes (ids 8–27), by the
 * ISO 3166-2 code the service resolves a visitor's region to. Shared by the service (the stub's
 * supportedAPIs), the console (which section a region gets) and gpp.js (which section it fills), so
 * the three cannot disagree. Imports nothing (src/shared/ rule).
 */
export const GPP_SECTIONS_MODES = ['usnat', 'state'] as const;
export type GppSectionsMode = (typeof GPP_SECTIONS_MODES)[number];

export const USNAT_SECTION = { id: 7, name: 'usnat' } as const;

/** The US state sections: region code → IAB section id and API prefix. */
export const US_STATE_SECTIONS: Readonly<Record<string, { id: number; name: string }>> = {
  'US-CA': { id: 8, name: 'usca' },
  'US-VA': { id: 9, name: 'usva' },
  'US-CO': { id: 10, name: 'usco' },
  'US-UT': { id: 11, name: 'usut' },
  'US-CT': { id: 12, name: 'usct' },
  'US-FL': { id: 13, name: 'usfl' },
  'US-MT': { id: 14, name: 'usmt' },
  'US-OR': { id: 15, name: 'usor' },
  'US-TX': { id: 16, name: 'ustx' },
  'US-DE': { id: 17, name: 'usde' },
  'US-IA': { id: 18, name: 'usia' },
  'US-NE': { id: 19, name: 'usne' },
  'US-NH': { id: 20, name: 'usnh' },
  'US-NJ': { id: 21, name: 'usnj' },
  'US-TN': { id: 22, name: 'ustn' },
  'US-MN': { id: 23, name: 'usmn' },
  'US-MD': { id: 24, name: 'usmd' },
  'US-IN': { id: 25, name: 'usin' },
  'US-KY': { id: 26, name: 'usky' },
  'US-RI': { id: 27, name: 'usri' },
};

/**
 * The section a visitor of `regionCode` gets under `mode`: the state's own under "state" when it has
 * one, else usnat. Only meaningful for US opt-out visitors (the SDK loads GPP for no one else).
 */
export function gppSectionFor(
  mode: GppSectionsMode | undefined,
  regionCode: string | null | undefined,
): { id: number; name: string } {
  if (mode === 'state' && regionCode) {
    const state = US_STATE_SECTIONS[regionCode.toUpperCase()];
    if (state) return state;
  }
  return USNAT_SECTION;
}

/** What a GPP stub and CMP list as supportedAPIs (`id:name`) for a channel's mode. */
export function supportedUsApis(mode: GppSectionsMode | undefined): string[] {
  const usnat = `${USNAT_SECTION.id}:${USNAT_SECTION.name}`;
  if (mode !== 'state') return [usnat];
  return [usnat, ...Object.values(US_STATE_SECTIONS).map(({ id, name }) => `${id}:${name}`)];
}
