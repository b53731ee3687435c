import { TCModel, TCString } from '@iabtechlabtcf/core';
import type { TcStringContext, TcStringProblem } from './tc-string.schemas.ts';
import { tcStringBoundsError } from './tc-string-bounds.ts';
import type { ListFacts } from './tc-string-channel-rules.ts';
import { setIds, tcStringBreaches } from './tc-string-rules.ts';

/**
 * Checks the TC string a visitor's decision carries (docs/guides/tcf.md), decoded with IAB's own
 * library (`@iabtechlabtcf/core`, never a decoder of ours): it must decode, name the channel's CMP
 * id and a vendor list version the service holds, and then keep the named rules of
 * tc-string-rules.ts (the policy's and the channel's). What the evidence keeps of it comes from
 * the library's model too.
 *
 * Decoding runs in the request, on the event loop: tc-string-bounds.ts refuses first, in O(length),
 * any string that would make the decoder walk more than a bounded number of vendor ids, or whose
 * ranges reach past the channel's highest vendor, so a decode costs at most a few milliseconds (a
 * real string: about 0.1 ms). Nothing here reads the store for a known vendor list version, and
 * nothing runs for a decision without a TC string.
 */

/**
 * What the evidence keeps of a TC string (evidence_events.tcf), as the library decoded it. The
 * vendor lists hold only the channel's vendors, so a short string can never become a large record:
 * with at most 1,000 vendors, the summary is a few kilobytes.
 */
export interface TcStringSummary {
  vendorListVersion: number;
  purposeConsents: number[];
  vendorConsents: number[];
  specialFeatureOptins: number[];
  purposeLegitimateInterests: number[];
  vendorLegitimateInterests: number[];
  vendorsDisclosed: number[];
  policyVersion: number;
  consentScreen: number;
  /**
   * The Publisher TC segment's custom purposes with consent (custom purpose n is the notice's n-th
   * purpose), present only when the string carries custom purposes.
   */
  publisherCustomConsents?: number[];
}

export type TcStringCheck =
  | { tcf: TcStringSummary; problems?: never }
  | { problems: TcStringProblem[]; tcf?: never };

/** The library's model of `value`, or why it does not decode. */
function decode(value: string, highestVendorId: number): TCModel | TcStringProblem {
  const refused = tcStringBoundsError(value, highestVendorId);
  if (refused?.rule) return { message: refused.message, rule: refused.rule };
  if (refused) return { message: `is not a TC string this service accepts: ${refused.message}` };
  try {
    return TCString.decode(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      message: `is not a TC string that decodes: ${reason.length > 160 ? `${reason.slice(0, 160)}…` : reason}`,
    };
  }
}

export function createTcStringCheck(deps: {
  /**
   * The tcfPolicyVersion and highest purpose id of a vendor list version the mirror holds, null
   * when it holds none (versions are never removed, and a version never changes).
   */
  vendorListFacts: (vendorListVersion: number) => Promise<ListFacts | null>;
}) {
  // Versions known once are known for good: a decision with a TC string asks the store once per
  // version. A string's version has 12 bits, so this holds at most 4,096 entries.
  const factsOf = new Map<number, ListFacts>();
  // The channel's vendors as a set and their highest id, once per notice object (the site cache
  // keeps the notices it serves; an older config version is read again, and its set made again).
  const selection = new WeakMap<readonly number[], { set: ReadonlySet<number>; highest: number }>();
  const selectionOf = (vendorIds: readonly number[]) => {
    let found = selection.get(vendorIds);
    if (!found) {
      found = { set: new Set(vendorIds), highest: vendorIds.reduce((a, b) => Math.max(a, b), 0) };
      selection.set(vendorIds, found);
    }
    return found;
  };

  return {
    /** The decoded summary the evidence keeps, or why the string is refused. */
    async check(value: string, context: TcStringContext): Promise<TcStringCheck> {
      const selected = selectionOf(context.vendorIds);
      const model = decode(value, selected.highest);
      if (!(model instanceof TCModel)) return { problems: [model] };
      // The model's getters are typed string | number; a decoded string sets numbers.
      if (Number(model.cmpId) !== context.cmpId) {
        return {
          problems: [
            {
              rule: 'tc_channel_mismatch',
              message: `names CMP id ${model.cmpId}, not this channel's (${context.cmpId})`,
            },
          ],
        };
      }
      const version = Number(model.vendorListVersion);
      let listFacts = factsOf.get(version);
      if (listFacts === undefined) {
        const found = Number.isInteger(version) ? await deps.vendorListFacts(version) : null;
        if (found === null) {
          return {
            problems: [{ message: `names vendor list version ${version}, which this service does not hold` }],
          };
        }
        listFacts = found;
        factsOf.set(version, listFacts);
      }
      const breaches = tcStringBreaches(model, context, selected.set, listFacts);
      if (breaches.length > 0) return { problems: breaches };
      // Every vendor below is one of the channel's (tc_vendor_not_selected); the filter keeps it so.
      const own = (ids: number[]) => ids.filter((id) => selected.set.has(id));
      return {
        tcf: {
          vendorListVersion: version,
          purposeConsents: setIds(model.purposeConsents),
          vendorConsents: own(setIds(model.vendorConsents)),
          specialFeatureOptins: setIds(model.specialFeatureOptins),
          purposeLegitimateInterests: setIds(model.purposeLegitimateInterests),
          vendorLegitimateInterests: own(setIds(model.vendorLegitimateInterests)),
          vendorsDisclosed: own(setIds(model.vendorsDisclosed)),
          policyVersion: Number(model.policyVersion),
          consentScreen: Number(model.consentScreen),
          ...(Number(model.numCustomPurposes) > 0
            ? { publisherCustomConsents: setIds(model.publisherCustomConsents) }
            : {}),
        },
      };
    },
  };
}
