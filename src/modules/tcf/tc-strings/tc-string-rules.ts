import type { TCModel } from '@iabtechlabtcf/core';
import type { RestrictionSetting, TcStringContext, TcStringRule } from './tc-string.schemas.ts';
import { channelRuleBreaches, type ListFacts } from './tc-string-channel-rules.ts';

/**
 * What a decoded TC string must satisfy to be recorded for a channel (docs/guides/tcf.md, "What the
 * service refuses"), beyond decoding, the CMP id and a known vendor list version (tc-string.ts).
 * Each rule has a name the 422 gives in `errors[].code` (TC_STRING_RULES, tc-string.schemas.ts).
 * Pure: the decoded model and what the caller already holds in memory (the notice the visitor
 * answered, the decisions resolved for it, the vendor list's policy version), no store access.
 */

export interface TcStringBreach {
  rule: TcStringRule;
  message: string;
}

/** The TC string's RestrictionType numbers (0, 1, 2), by the channel's names. */
const RESTRICTION_TYPES = ['not_allowed', 'require_consent', 'require_li'] as const;

/**
 * The lowest TcfPolicyVersion accepted: 5, the policy of TCF v2.3 and v2.4 (the DisclosedVendors
 * segment became mandatory with it; @iabtechlabtcf/core 1.5 writes 5 by default). A string of an
 * earlier policy, or naming a vendor list published under one, is not one this CMP makes.
 */
export const MIN_POLICY_VERSION = 5;

/**
 * The purposes the TCF Policies allow on consent only: storage and access (1) and the profile
 * purposes 3 to 6. A legitimate-interest signal for one of them, by the vendors' vector or the
 * publisher's own, is refused.
 */
export const CONSENT_ONLY_PURPOSES: readonly number[] = [1, 3, 4, 5, 6];

/** How far ahead of the service's clock a string's Created may be (clocks differ; Created is a day). */
export const CREATED_AHEAD_MS = 86_400_000;
const DAY_MS = 86_400_000;

/** The set ids of a decoded vector, ascending (the library's Set keeps insertion order). */
export function setIds(vector: { values(): IterableIterator<number> }): number[] {
  return [...vector.values()].sort((a, b) => a - b);
}

/** At most five ids in a message: a refusal names the rule, never a whole vector. */
function some(ids: number[]): string {
  return ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
}

/** The channel's vendors as a set, made once per notice (the notice objects are cached). */
export type SelectedVendors = ReadonlySet<number>;

/**
 * The rules' breaches, in the order of TC_STRING_RULES, one entry per rule broken; empty when the
 * string may be recorded. `list`: what the rules read of the vendor list version the string names.
 */
export function tcStringBreaches(
  model: TCModel,
  context: TcStringContext,
  selected: SelectedVendors,
  list: ListFacts,
): TcStringBreach[] {
  const listPolicyVersion = list.policyVersion;
  const breaches: TcStringBreach[] = [];
  const breach = (rule: TcStringRule, message: string) => breaches.push({ rule, message });

  // A CMP of one site writes service-specific strings: a global one would speak for other sites.
  if (model.isServiceSpecific !== true) {
    breach('tc_not_service_specific', 'is not service-specific (IsServiceSpecific is 0)');
  }

  const policyVersion = Number(model.policyVersion);
  if (policyVersion < MIN_POLICY_VERSION || policyVersion !== listPolicyVersion) {
    breach(
      'tc_policy_version',
      `carries TCF policy version ${policyVersion}; vendor list version ${model.vendorListVersion} is of policy version ${listPolicyVersion}, and this service accepts ${MIN_POLICY_VERSION} or later`,
    );
  }

  const forbiddenLi = [
    ...setIds(model.purposeLegitimateInterests),
    ...setIds(model.publisherLegitimateInterests),
  ].filter((id, i, all) => CONSENT_ONLY_PURPOSES.includes(id) && all.indexOf(id) === i);
  if (forbiddenLi.length > 0) {
    breach(
      'tc_purpose_li_forbidden',
      `signals legitimate interest for purpose ${some(forbiddenLi)}, which the TCF Policies allow on consent only`,
    );
  }

  const consents = setIds(model.vendorConsents);
  const interests = setIds(model.vendorLegitimateInterests);
  const disclosed = setIds(model.vendorsDisclosed);
  const notSelected = [...new Set([...consents, ...interests, ...disclosed])]
    .filter((id) => !selected.has(id))
    .sort((a, b) => a - b);
  if (notSelected.length > 0) {
    breach('tc_vendor_not_selected', `names vendor ${some(notSelected)}, which this channel did not choose`);
  }

  const shown = new Set(disclosed);
  const notDisclosed = [...new Set([...consents, ...interests])]
    .filter((id) => !shown.has(id))
    .sort((a, b) => a - b);
  if (notDisclosed.length > 0) {
    breach(
      'tc_vendor_not_disclosed',
      `signals consent or legitimate interest for vendor ${some(notDisclosed)}, which its DisclosedVendors segment does not list`,
    );
  }

  const created = new Date(model.created).getTime();
  const now = context.now.getTime();
  // Created has a day's precision (the library sets it to midnight UTC): compared by whole days.
  const oldest = Math.floor(now / DAY_MS) * DAY_MS - context.consentMaxAgeDays * DAY_MS;
  if (!Number.isFinite(created) || created > now + CREATED_AHEAD_MS || created < oldest) {
    breach(
      'tc_created_out_of_range',
      `was created ${Number.isFinite(created) ? new Date(created).toISOString().slice(0, 10) : 'at no valid date'}: more than a day ahead, or more than ${context.consentMaxAgeDays} days (the channel's consentMaxAgeDays) ago`,
    );
  }

  const contradictions = contradictedPurposes(model, context);
  const uncarried = uncarriedPurposes(model, context);
  if (contradictions.length > 0 || uncarried !== null) {
    breach(
      'tc_contradicts_decisions',
      [
        contradictions.length > 0
          ? `grants custom purpose ${some(contradictions)} in its Publisher TC segment, which the decision denies or the notice does not have (custom purpose n is the notice's n-th purpose)`
          : null,
        uncarried,
      ]
        .filter((part) => part !== null)
        .join('; '),
    );
  }

  const restrictionMismatch = restrictionDifferences(model, context.publisherRestrictions ?? [], selected);
  if (restrictionMismatch.length > 0) {
    breach(
      'tc_publisher_restrictions',
      `carries publisher restrictions that differ from the channel's, for ${restrictionMismatch.slice(0, 5).join(', ')}${restrictionMismatch.length > 5 ? ` and ${restrictionMismatch.length - 5} more` : ''}`,
    );
  }
  for (const { rule, message } of channelRuleBreaches(model, context.channel, list, context.now, selected)) {
    breach(rule, message);
  }
  return breaches;
}

/**
 * A string without a Publisher TC segment (or with fewer custom purposes than the notice's last
 * optional purpose) cannot carry the visitor's choice of the channel's own optional purposes,
 * which tcf.js writes there (docs/guides/tcf.md, "Your purposes in the Publisher TC segment"): ad
 * tech reading it would see no choice at all.
 * Why, or null when it carries them. Required purposes need no choice, so a notice of required
 * purposes only needs no segment.
 */
function uncarriedPurposes(model: TCModel, context: TcStringContext): string | null {
  const lastOptional = context.purposes.reduce((last, p, i) => (p.required ? last : i + 1), 0);
  const carried = Number(model.numCustomPurposes) || 0;
  if (lastOptional === 0 || carried >= lastOptional) return null;
  return carried === 0
    ? `has no Publisher TC segment, or one without custom purposes, so it cannot carry the visitor's choice of the channel's own optional purposes: encode them as custom purposes (custom purpose n is the notice's n-th purpose, ${context.purposes.length} in all)`
    : `carries ${carried} custom purposes in its Publisher TC segment, fewer than the notice's ${context.purposes.length}: encode one per purpose of the notice (custom purpose n is the notice's n-th purpose)`;
}

/**
 * Where a string's publisher restrictions differ from the channel's, as "vendor v purpose p"
 * labels, sorted: a restriction missing, added or of another type, for a vendor the channel chose. A string that drops a
 * restriction would let a vendor use a purpose the publisher forbade.
 */
export function restrictionDifferences(
  model: TCModel,
  settings: readonly RestrictionSetting[],
  selected: SelectedVendors,
): string[] {
  const expected = new Map<string, string>();
  for (const { purposeId, type, vendorIds } of settings) {
    for (const id of vendorIds) expected.set(`${id}:${purposeId}`, type);
  }
  const carried = new Map<string, string>();
  const vector = model.publisherRestrictions;
  for (const restriction of vector.getRestrictions()) {
    const type = RESTRICTION_TYPES[restriction.restrictionType as number] ?? 'undefined';
    // IAB's encoder writes ranges that may span ids the channel did not choose: those are moot.
    for (const id of vector.getVendors(restriction))
      if (selected.has(id)) carried.set(`${id}:${restriction.purposeId}`, type);
  }
  const differing = new Set<string>();
  for (const [key, type] of expected) if (carried.get(key) !== type) differing.add(key);
  for (const key of carried.keys()) if (!expected.has(key)) differing.add(key);
  return [...differing]
    .map((key) => key.split(':').map(Number) as [number, number])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([vendor, purpose]) => `vendor ${vendor} purpose ${purpose}`);
}

/**
 * The channel's own purposes are not TCF purposes: the layers ask for them beside the TCF ones, and
 * a TC string speaks for them only in its Publisher TC segment, as custom purposes numbered in the
 * notice's order (custom purpose 1 is the notice's first purpose). Custom purposes set there, as
 * consent or as legitimate interest, whose purpose the recorded decisions deny, or that the notice
 * does not have: a string may grant less than the decisions (ad tech then does less), never more.
 */
function contradictedPurposes(model: TCModel, context: TcStringContext): number[] {
  const granted = new Set([
    ...setIds(model.publisherCustomConsents),
    ...setIds(model.publisherCustomLegitimateInterests),
  ]);
  return [...granted]
    .filter((id) => {
      const purpose = context.purposes[id - 1];
      return purpose === undefined || context.decisions[purpose.key] !== 'granted';
    })
    .sort((a, b) => a - b);
}
