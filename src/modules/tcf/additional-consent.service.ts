/**
 * Google's Additional Consent string, version 2 (Google's "Additional Consent technical
 * specification"): `2~<consented provider ids>~dv.<disclosed provider ids>`, each list of ATP ids
 * separated by dots and possibly empty; a consented provider is not listed again as disclosed. The
 * server checks a posted string against that format and the channel's providers before the
 * evidence keeps it (docs/guides/tcf.md, "Google Additional Consent").
 */

export const AC_RULES = ['ac_invalid', 'ac_provider_not_selected', 'ac_not_expected'] as const;
export type AcRule = (typeof AC_RULES)[number];

export interface AcProblem {
  rule: AcRule;
  message: string;
}

export interface AcString {
  consented: number[];
  disclosed: number[];
}

const IDS = '(?:[1-9][0-9]{0,8}(?:\\.[1-9][0-9]{0,8})*)?';
const FORMAT = new RegExp(`^2~(${IDS})~dv\\.(${IDS})$`);

const idsOf = (text: string): number[] => (text === '' ? [] : text.split('.').map(Number));

/** The two lists of a version 2 AC string, or null when it is not one (duplicates included). */
export function parseAcString(value: string): AcString | null {
  const match = FORMAT.exec(value);
  if (!match) return null;
  const consented = idsOf(match[1]);
  const disclosed = idsOf(match[2]);
  const all = [...consented, ...disclosed];
  if (new Set(all).size !== all.length) return null;
  return { consented, disclosed };
}

/** The version 2 AC string of a choice: consented providers, then the other disclosed ones. */
export function acString(consented: readonly number[], disclosed: readonly number[]): string {
  const given = new Set(consented);
  const rest = disclosed.filter((id) => !given.has(id));
  return `2~${[...consented].join('.')}~dv.${rest.join('.')}`;
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
          'is not a version 2 Additional Consent string (2~<consented ids>~dv.<disclosed ids>, ids dot-separated, none twice)',
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
  return [];
}
