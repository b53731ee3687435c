import { CHANNEL_RULES, type TcChannelFacts } from './tc-string-channel-rules.ts';

/*
 * The TC string check as other modules see it (consent calls it through the checker services.ts
 * wires from tc-string.ts): the rule names a refusal gives in `errors[].code` (consent.schemas.ts
 * lists them in the API's description), what the caller hands the check, and what a refusal says.
 * Contract types and names only, so they live here rather than being passed on by tcf.service.ts.
 */

/**
 * The rules a decoded TC string must keep to be recorded for a channel (tc-string-rules.ts, the
 * channel's in tc-string-channel-rules.ts), by the name a 422 gives in `errors[].code`.
 */
export const TC_STRING_RULES = [
  'tc_not_service_specific',
  'tc_policy_version',
  'tc_purpose_li_forbidden',
  'tc_vendor_not_selected',
  'tc_vendor_not_disclosed',
  'tc_created_out_of_range',
  'tc_contradicts_decisions',
  'tc_publisher_restrictions',
  ...CHANNEL_RULES,
] as const;
export type TcStringRule = (typeof TC_STRING_RULES)[number];

/** What the rules read of the channel and of the decision (the notice the visitor answered). */
export interface TcStringContext {
  cmpId: number;
  /** The vendors the channel chose (the notice's `tcf.vendorIds`). */
  vendorIds: readonly number[];
  consentMaxAgeDays: number;
  /** The notice's purposes, in its order: custom purpose n of the Publisher TC segment is the n-th. */
  purposes: readonly { key: string; required?: boolean }[];
  /** The decisions as they will be recorded (resolveDecisions: every purpose of the notice). */
  decisions: Readonly<Record<string, 'granted' | 'denied'>>;
  /** The notice's publisher restrictions (`tcf.publisherRestrictions`; absent in older notices: none). */
  publisherRestrictions?: readonly RestrictionSetting[];
  /** The notice's TCF settings and vendor declarations (tc-string-channel-rules.ts). */
  channel: TcChannelFacts;
  now: Date;
}

/** One restriction as a channel sets it (tcf-settings.service.ts). */
export interface RestrictionSetting {
  purposeId: number;
  type: 'not_allowed' | 'require_consent' | 'require_li';
  vendorIds: readonly number[];
}

/** Why a string is refused: a 422 of the caller's, one entry per problem, `rule` when one is named. */
export interface TcStringProblem {
  message: string;
  rule?: TcStringRule;
}
