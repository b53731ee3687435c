import { TCString } from '@iabtechlabtcf/core';
import { tcStringBoundsError } from './tc-string-bounds.ts';

/**
 * Checks the TC string a visitor's decision carries (docs/guides/tcf.md), decoded with IAB's own
 * library (`@iabtechlabtcf/core`, never a decoder of ours): it must decode, name the channel's CMP
 * id, and a vendor list version the service holds. What the evidence keeps of it comes from the
 * library's model too.
 *
 * Decoding runs in the request, on the event loop: tc-string-bounds.ts refuses first, in O(length),
 * any string that would make the decoder walk more than a bounded number of vendor ids, so a
 * decode costs at most a few milliseconds (a real string: about 0.1 ms). Nothing here runs for a
 * decision without a TC string.
 */

/** What the evidence keeps of a TC string (evidence_events.tcf), as the library decoded it. */
export interface TcStringSummary {
  vendorListVersion: number;
  purposeConsents: number[];
  vendorConsents: number[];
  specialFeatureOptins: number[];
}

export type TcStringCheck = { tcf: TcStringSummary; problem?: never } | { problem: string; tcf?: never };

/** Ids of a vector the library decoded, ascending (its Set keeps insertion order, not id order). */
function ids(vector: { values(): IterableIterator<number> }): number[] {
  return [...vector.values()].sort((a, b) => a - b);
}

/** The library's model of `value`, or why it does not decode. */
function decode(value: string): ReturnType<typeof TCString.decode> | string {
  const refused = tcStringBoundsError(value);
  if (refused) return `is not a TC string this service accepts: ${refused}`;
  try {
    return TCString.decode(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a TC string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`;
  }
}

export function createTcStringCheck(deps: {
  /** Whether the mirror holds this vendor list version (versions are never removed). */
  hasVendorList: (vendorListVersion: number) => Promise<boolean>;
}) {
  // Versions known once are known for good: a decision with a TC string asks the store once per version.
  const known = new Set<number>();

  return {
    /** The decoded summary the evidence keeps, or why the string is refused (a 422 of the caller's). */
    async check(value: string, cmpId: number): Promise<TcStringCheck> {
      const model = decode(value);
      if (typeof model === 'string') return { problem: model };
      // The model's getters are typed string | number; a decoded string sets numbers.
      if (Number(model.cmpId) !== cmpId) {
        return { problem: `names CMP id ${model.cmpId}, not this channel's (${cmpId})` };
      }
      const version = Number(model.vendorListVersion);
      if (!known.has(version)) {
        if (!Number.isInteger(version) || !(await deps.hasVendorList(version))) {
          return { problem: `names vendor list version ${version}, which this service does not hold` };
        }
        known.add(version);
      }
      return {
        tcf: {
          vendorListVersion: version,
          purposeConsents: ids(model.purposeConsents),
          vendorConsents: ids(model.vendorConsents),
          specialFeatureOptins: ids(model.specialFeatureOptins),
        },
      };
    },
  };
}
