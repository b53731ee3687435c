import type { Decisions, Purpose } from '../../types.ts';
import { optedOut, type UsnatFields } from '../usnat.ts';

// Int(2) values the US sections share: 0 not applicable, 1 yes (notice given, opted out), 2 no.
const NOT_APPLICABLE = 0;
const YES = 1;
const NO = 2;

/** Fields the library sets itself: each section's version and its GPC segment's type. */
const LIBRARY_FIELDS = new Set(['Version', 'MspaVersion', 'GpcSegmentType']);
/** The opt-outs of sale, sharing and targeted advertising: the visitor's one switch (usnat.ts). */
const OPT_OUTS = new Set(['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut']);
/** Their notices. */
const OPT_OUT_NOTICES = new Set([
  'SaleOptOutNotice',
  'SharingOptOutNotice',
  'TargetedAdvertisingOptOutNotice',
]);
/** The general notice, named per state law ("sharing" in the older sections, "processing" in the newer). */
const NOTICES = new Set(['SharingNotice', 'ProcessingNotice']);

/**
 * A US state section's fields for the visitor's state, by the same rules as usnat (usnat.ts), read
 * off the section's own field names (`shape`: sections.ts) so that every section the library
 * encodes is covered without a table per state:
 * - the notice (SharingNotice or ProcessingNotice) is given: 1;
 * - the sale, sharing and targeted-advertising opt-out notices and opt-outs, where the section has
 *   them, follow the gpcOptOut purposes (1/2; 0 when the channel has none);
 * - sensitive data, known children, personal-data and additional-processing consents and the
 *   sensitive-data notices: 0 (not applicable), as this SDK does not ask for them;
 * - MspaCoveredTransaction 2 (no: the service cannot know whether the operator signed the MSPA), the
 *   MSPA modes 0;
 * - the GPC subsection, where the section has one (not usva, usut, usfl, usin, usky, usri), carries
 *   the browser's signal.
 */
export function stateFields(
  shape: Record<string, unknown>,
  decisions: Decisions | null,
  purposes: Purpose[],
  gpc: boolean,
): UsnatFields {
  const applicable = purposes.some((p) => p.gpcOptOut && !p.required);
  const notice = applicable ? YES : NOT_APPLICABLE;
  const optOut = applicable ? (optedOut(decisions, purposes) ? YES : NO) : NOT_APPLICABLE;
  const fields: UsnatFields = {};
  for (const [name, value] of Object.entries(shape)) {
    if (LIBRARY_FIELDS.has(name)) continue;
    if (name === 'Gpc') {
      fields.GpcSegmentIncluded = true;
      fields.Gpc = gpc;
    } else if (NOTICES.has(name)) fields[name] = YES;
    else if (OPT_OUT_NOTICES.has(name)) fields[name] = notice;
    else if (OPT_OUTS.has(name)) fields[name] = optOut;
    else if (name === 'MspaCoveredTransaction') fields[name] = NO;
    else if (Array.isArray(value)) fields[name] = value.map(() => NOT_APPLICABLE);
    else fields[name] = NOT_APPLICABLE;
  }
  return fields;
}
