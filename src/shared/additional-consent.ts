/**
 * Google's Additional Consent string, version 2 (Google's "Additional Consent technical
 * specification"): `2~<consented provider ids>~dv.<disclosed provider ids>`, each list of ATP ids
 * separated by dots and possibly empty; a consented provider is not listed again as disclosed.
 * With no disclosed ids, Google's specification allows the string to end at `~dv` (no dot).
 * Shared by tcf.js, which makes and reads back the visitor's string, and the service, which checks
 * a posted one (docs/guides/tcf.md, "Google Additional Consent"): one format, written once.
 */

export interface AcString {
  consented: number[];
  disclosed: number[];
}

const IDS = '(?:[1-9][0-9]{0,8}(?:\\.[1-9][0-9]{0,8})*)?';
const FORMAT = new RegExp(`^2~(${IDS})~dv(?:\\.(${IDS}))?$`);

const idsOf = (text: string): number[] => (text === '' ? [] : text.split('.').map(Number));

/** The two lists of a version 2 AC string, or null when it is not one (duplicates included). */
export function parseAcString(value: string): AcString | null {
  const match = FORMAT.exec(value);
  if (!match) return null;
  const consented = idsOf(match[1]);
  const disclosed = idsOf(match[2] ?? '');
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
