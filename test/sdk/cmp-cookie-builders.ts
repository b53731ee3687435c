import { Segment, SegmentEncoder, TCModel } from '@iabtechlabtcf/core';

/** The cookies other CMPs write, as they write them, for the tests of imports. */

/** OneTrust's OptanonConsent: `datestamp` is Date#toString's text, the whole form-encoded. */
export function oneTrust(groups: string, at: Date) {
  return new URLSearchParams({
    isGpcEnabled: '0',
    datestamp: at.toString(),
    version: '202409.1.0',
    groups,
  }).toString();
}

/** Cookiebot's CookieConsent: a JavaScript object literal, percent-encoded. */
export function cookiebot(fields: Record<string, string | boolean | number>) {
  const literal = Object.entries(fields)
    .map(([key, value]) => `${key}:${typeof value === 'string' ? `'${value}'` : value}`)
    .join(',');
  return encodeURIComponent(`{${literal}}`);
}

/** A TC string's core segment made by IAB's own encoder (no vendor list needed for purposes and dates). */
export function tcString(purposes: number[], at: Date) {
  const model = new TCModel();
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.created = at;
  model.lastUpdated = at;
  model.purposeConsents.set(purposes);
  return SegmentEncoder.encode(model, Segment.CORE);
}
