import { declaredSectionIds, gppBoundsError } from './gpp-bounds.ts';
import type { GppDecoder, GppOwner } from './gpp-decoder.ts';

/**
 * Whether a GPP string (IAB Global Privacy Platform) decodes, checked with the IAB's own library
 * (`@iabgpp/cmpapi`, no hand-written decoder): null when it does, else why not, phrased to follow
 * the field's name. Every section is decoded (`toObject`), not just the header.
 *
 * A decoder's worst case is the attacker's best case, so:
 * - gpp-bounds.ts and gpp-section-bounds.ts read the header and the sections' vendor ranges
 *   themselves and refuse, before any decoding, a string that would make the library expand more
 *   than a bound (the library expands every declared range one id at a time: 15 characters of
 *   header once took 18 s of the event loop and then the process; a 603-character tcfeuv2 section
 *   of 100 ranges 1..65535 ran the shared decoder out of memory, and every tenant's GPP decisions
 *   waited for its restarts).
 * - The decode runs in child processes with a small heap, a timeout and the same expansion budget,
 *   shared so that one organization's strings cannot hold another's (gpp-decoder.ts); the main
 *   thread never waits on them.
 */
export async function gppDecodeError(
  decoder: GppDecoder,
  value: string,
  owner: GppOwner,
): Promise<string | null> {
  const refused = gppBoundsError(value);
  if (refused) return `is not a GPP string this service accepts: ${refused}`;
  const refusal = await decoder.decode(value, owner);
  if (refusal === null) return null;
  if (refusal.budget) return `is not a GPP string this service accepts: ${refusal.reason}`;
  const { reason } = refusal;
  return `is not a GPP string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
}

/** The GPP section id of the EU TCF v2 section (`tcfeuv2`), whose content is a TC string. */
export const TCF_EU_SECTION_ID = 2;

/**
 * The EU TCF v2 section of a GPP string (IAB Global Privacy Platform, section 2): a TC string by
 * the specification (its core and other segments, as `@iabtechlabtcf/core` reads them), or null
 * when the header declares none. For a string gppDecodeError took: the header is read within the
 * bounds of gpp-bounds.ts, and nothing is expanded.
 */
export function tcfEuSection(value: string): string | null {
  const [header, ...sections] = value.split('~');
  const ids = declaredSectionIds(header);
  if (typeof ids === 'string') return null;
  const at = ids.indexOf(TCF_EU_SECTION_ID);
  return at === -1 ? null : (sections[at] ?? null);
}
