/**
 * The visitor's TC string, kept first-party beside the SDK's own records: in localStorage (never a
 * cookie: the site's server has no use for it, and ad tech reads it through `__tcfapi`), with the
 * configVersion it was made for, as the SDK's consent cookie records its decision. The cookie still
 * decides whether a decision holds (age, material changes); this only says which string goes with
 * it. Without storage the string lives for this page only, and the next page asks again.
 */
export interface KeptTcString {
  tc: string;
  /** The configVersion the choice was made for. */
  v: number;
  /** The Google Additional Consent string made with it, if the channel has providers. */
  ac?: string;
}

const keyOf = (siteKey: string) => `cs_tcf_${siteKey.replace(/[^A-Za-z0-9_-]/g, '')}`;

export function readTcString(siteKey: string): KeptTcString | null {
  try {
    const kept = JSON.parse(localStorage.getItem(keyOf(siteKey)) || 'null');
    return kept && typeof kept.tc === 'string' && typeof kept.v === 'number' ? kept : null;
  } catch {
    return null;
  }
}

export function writeTcString(siteKey: string, kept: KeptTcString) {
  try {
    localStorage.setItem(keyOf(siteKey), JSON.stringify(kept));
  } catch {
    // No storage: this page keeps the string in memory only.
  }
}
