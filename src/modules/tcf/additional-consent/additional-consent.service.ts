/**
 * The server's check of a posted Google Additional Consent string (its format:
 * src/shared/additional-consent.ts) against the channel's providers, before the evidence keeps it
 * (docs/guides/tcf.md, "Google Additional Consent").
 */

import { parseAcString } from '../../../shared/additional-consent.ts';

export const AC_RULES = ['ac_invalid', 'ac_provider_not_selected', 'ac_not_expected'] as const;
export type AcRule = (typeof AC_RULES)[number];

export interface AcProblem {
  rule: AcRule;
  message: string;
}

/**
 * Why a posted AC string is refused for a channel whose providers are `providerIds` (null: the
 * channel has no Additional Consent), empty when it may be kept.
 */
export function acStringProblems(value: string, providerIds: readonly number[] | null): AcProblem[] {
  if (providerIds === null) {
    return [
      { rule: 'ac_not_expected', message: 'was sent, but this channel has no googleAdditionalConsent' },
    ];
  }
  const parsed = parseAcString(value);
  if (!parsed) {
    return [
      {
        rule: 'ac_invalid',
        message:
          'is not a version 2 Additional Consent string (2~<consented ids>~dv.<disclosed ids>, ids dot-separated, none twice; `~dv` may end the string when no id is left to disclose)',
      },
    ];
  }
  const chosen = new Set(providerIds);
  const foreign = [...parsed.consented, ...parsed.disclosed].filter((id) => !chosen.has(id));
  if (foreign.length > 0) {
    const shown =
      foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? ` and ${foreign.length - 5} more` : '');
    return [
      {
        rule: 'ac_provider_not_selected',
        message: `names provider ${shown}, which this channel's googleAdditionalConsent does not list`,
      },
    ];
  }
  // Every provider the layers showed is in the string, consented or disclosed: one left out reads,
  // to Google, as a provider never shown, so its consent could not be told from no disclosure.
  const named = new Set([...parsed.consented, ...parsed.disclosed]);
  const left = providerIds.filter((id) => !named.has(id));
  if (left.length > 0) {
    const shown = left.slice(0, 5).join(', ') + (left.length > 5 ? ` and ${left.length - 5} more` : '');
    return [
      {
        rule: 'ac_invalid',
        message: `leaves out provider ${shown}, which the channel's googleAdditionalConsent shows: list every provider, consented or after ~dv.`,
      },
    ];
  }
  return [];
}
