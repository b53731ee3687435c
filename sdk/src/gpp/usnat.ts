import type { Decisions, Purpose } from '../types.ts';

/** The US National section (IAB GPP section 7, API prefix `usnat`): what the SDK puts in it. */
export const USNAT = 'usnat';
export const USNAT_ID = 7;

/** Field values of the MSPA US National section, by the IAB's field names. */
export type UsnatFields = Record<string, number | number[] | boolean>;

// Int(2) values shared by the notice and opt-out fields of the US National spec.
const NOT_APPLICABLE = 0;
const YES = 1; // notice given / opted out
const NO = 2; // (opt-out fields) did not opt out

/**
 * The purposes a GPP string speaks for: the optional ones marked gpcOptOut, which the service
 * treats as the "sale, sharing and targeted advertising" purposes (docs/regions.md). A required
 * purpose cannot be opted out of, so it says nothing about the visitor's choice.
 */
const covered = (purposes: Purpose[]) => purposes.filter((p) => p.gpcOptOut && !p.required);

/**
 * Whether the visitor has opted out of sale, sharing and targeted advertising. A visitor who denied
 * any covered purpose asked to stop at least one of them, and the US National section has one flag
 * per kind of processing, not per purpose: reporting "did not opt out" while one such purpose is off
 * would tell vendors they may do what the visitor refused. So any denied covered purpose is an
 * opt-out. No decision yet (null, or the purpose absent) is not an opt-out: opt-out regions run
 * optional purposes until the visitor says otherwise.
 */
export function optedOut(decisions: Decisions | null, purposes: Purpose[]): boolean {
  return covered(purposes).some((p) => decisions?.[p.key] === 'denied');
}

/**
 * The usnat fields for the visitor's current state. The SDK shows its notice, with the "Your Privacy
 * Choices" link, before anything is decided, so the notices are given (1). Sale, sharing and targeted
 * advertising are one switch here (the gpcOptOut purposes); a channel without such purposes sells,
 * shares and targets nothing, so its notices and opt-outs are "not applicable" (0). Sensitive data,
 * known children and the secondary-use consent are not asked by this SDK: 0 (not applicable).
 * MspaCoveredTransaction has no "not applicable" value; the service cannot know whether the
 * operator signed the MSPA, so it says 2 (no) and the MSPA modes are 0. The GPC subsection is
 * always included and carries the browser's signal.
 */
export function usnatFields(decisions: Decisions | null, purposes: Purpose[], gpc: boolean): UsnatFields {
  const applicable = covered(purposes).length > 0;
  const notice = applicable ? YES : NOT_APPLICABLE;
  const optOut = applicable ? (optedOut(decisions, purposes) ? YES : NO) : NOT_APPLICABLE;
  return {
    SharingNotice: YES,
    SaleOptOutNotice: notice,
    SharingOptOutNotice: notice,
    TargetedAdvertisingOptOutNotice: notice,
    SensitiveDataProcessingOptOutNotice: NOT_APPLICABLE,
    SensitiveDataLimitUseNotice: NOT_APPLICABLE,
    SaleOptOut: optOut,
    SharingOptOut: optOut,
    TargetedAdvertisingOptOut: optOut,
    SensitiveDataProcessing: new Array(16).fill(NOT_APPLICABLE),
    KnownChildSensitiveDataConsents: [NOT_APPLICABLE, NOT_APPLICABLE, NOT_APPLICABLE],
    PersonalDataConsents: NOT_APPLICABLE,
    MspaCoveredTransaction: NO,
    MspaOptOutOptionMode: NOT_APPLICABLE,
    MspaServiceProviderMode: NOT_APPLICABLE,
    GpcSegmentIncluded: true,
    Gpc: gpc,
  };
}
