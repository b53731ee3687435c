import { COUNTRY_CODES, SUBDIVISION_CODES } from './iso-3166-codes.ts';

/**
 * Region codes (docs/regions.md). The lists of assigned ISO 3166-1 alpha-2 countries (249) and ISO
 * 3166-2 subdivisions (about 5,000) are generated from the `iso-3166` package (wooorm/iso-3166,
 * kept in step with ISO's Online Browsing Platform) by iso-3166.generate.ts; a test fails when
 * they and the installed package differ.
 */

/** A code a rule may name: a country, a subdivision, a group, or `*`. The schema's pattern. */
export const RULE_CODE_PATTERN = '^(\\*|EEA|EU|[A-Z]{2}(-[A-Z0-9]{1,3})?)$';

/** A visitor's region: a country (`FR`) or a subdivision (`US-CA`); never a group. */
export const VISITOR_REGION_PATTERN = '^[A-Z]{2}(-[A-Z0-9]{1,3})?$';

const SUBDIVISION_FORMAT = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;
const COUNTRY_FORMAT = /^[A-Z]{2}$/;

/**
 * Plus XK (Kosovo): user-assigned, not in ISO 3166-1, but what MaxMind, Cloudflare and the EU use,
 * so a Kosovo visitor has a region and a rule can name it.
 */
export const ISO_COUNTRIES: ReadonlySet<string> = new Set(COUNTRY_CODES.split(' '));
const COUNTRIES: ReadonlySet<string> = new Set([...ISO_COUNTRIES, 'XK']);
const SUBDIVISIONS: ReadonlySet<string> = new Set(
  SUBDIVISION_CODES.flatMap((line) => {
    const [country, codes] = line.split(':');
    return codes.split(' ').map((code) => `${country}-${code}`);
  }),
);

/** The 27 member states (ISO codes: Greece is GR, not EL as in EU usage). */
const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
];

/**
 * Parts of member states that ISO 3166-1 lists as countries of their own, and that GeoIP databases
 * and CDNs report under those codes: the French outermost regions (TFEU art. 349 and 355(1)) and
 * Åland (part of Finland, EU law applies). A visitor in Réunion is in the EU; GDPR applies there.
 * Overseas countries and territories (Greenland, New Caledonia, Saint-Barthélemy…) are not in the EU.
 */
const EU_TERRITORIES_WITH_OWN_CODE = ['GF', 'GP', 'MQ', 'RE', 'YT', 'MF', 'AX'];

export const GROUPS: Readonly<Record<'EU' | 'EEA', ReadonlySet<string>>> = {
  EU: new Set([...EU_MEMBER_STATES, ...EU_TERRITORIES_WITH_OWN_CODE]),
  EEA: new Set([...EU_MEMBER_STATES, ...EU_TERRITORIES_WITH_OWN_CODE, 'IS', 'LI', 'NO']),
};

export type GroupCode = keyof typeof GROUPS;

export const isGroup = (code: string): code is GroupCode => code === 'EU' || code === 'EEA';

export const isCountry = (code: string): boolean => COUNTRIES.has(code);

export const isSubdivision = (code: string): boolean => SUBDIVISIONS.has(code);

/** The country part of a visitor region (`US-CA` → `US`). */
export const countryOf = (region: string): string => region.slice(0, 2);

/**
 * Why a code cannot be named in a rule, or null when it can. The message goes to the 422's
 * `errors[].message`, so it says what would be accepted.
 */
export function ruleCodeProblem(code: string): string | null {
  if (code === '*' || isGroup(code)) return null;
  if (COUNTRY_FORMAT.test(code)) {
    return isCountry(code) ? null : `"${code}" is not an assigned ISO 3166-1 alpha-2 country code`;
  }
  if (SUBDIVISION_FORMAT.test(code)) {
    if (!isCountry(countryOf(code))) {
      return `"${code}" does not start with an assigned ISO 3166-1 alpha-2 country code`;
    }
    return isSubdivision(code) ? null : `"${code}" is not an ISO 3166-2 subdivision code`;
  }
  return `"${code}" is not a region code: use a country (FR), a subdivision (US-CA), EEA, EU or *`;
}

/**
 * A subdivision as geo sources give it, as an ISO 3166-2 code, or null if it is not one of
 * `country`'s. CloudFront and GeoIP City give the part after the hyphen (`CA`); some proxies give
 * the whole code (`US-CA`), which must then be of the same country.
 */
export function subdivisionOf(country: string, value: string): string | null {
  const code = value.includes('-') ? value : `${country}-${value}`;
  if (countryOf(code) !== country || !SUBDIVISION_FORMAT.test(code)) return null;
  return isSubdivision(code) ? code : null;
}
