import { regionCode } from './describe.ts';

/**
 * The region the panel declares for this tab: kept in sessionStorage under the key sdk.js reads as
 * the page loads (sdk/src/debug-loader.ts), so every page of the tab, and only this tab, has it.
 */
const overrideKey = (siteKey: string) => `cs_debug_${siteKey}`;

export const SUGGESTED_REGIONS: Array<[string, string]> = [
  ['DE', 'Germany (EU)'],
  ['FR', 'France (EU)'],
  ['GB', 'United Kingdom'],
  ['US-CA', 'California'],
  ['US-TX', 'Texas'],
  ['US', 'United States'],
  ['CA-QC', 'Quebec'],
  ['BR', 'Brazil'],
  ['JP', 'Japan'],
];

export function readOverride(siteKey: string): string | null {
  try {
    return sessionStorage.getItem(overrideKey(siteKey));
  } catch {
    return null;
  }
}

/** Keeps `input` as the tab's region; what to tell the developer when it cannot be, else null. */
export function keepOverride(siteKey: string, input: string): string | null {
  const code = regionCode(input);
  if (!code) return 'Not a region code: use ISO 3166, such as DE or US-CA.';
  try {
    sessionStorage.setItem(overrideKey(siteKey), code);
    return null;
  } catch {
    return 'This browser refused sessionStorage here, so the region cannot be kept.';
  }
}

export function clearOverride(siteKey: string): void {
  try {
    sessionStorage.removeItem(overrideKey(siteKey));
  } catch {
    // nothing kept, nothing to clear
  }
}
