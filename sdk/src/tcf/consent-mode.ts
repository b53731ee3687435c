import { TCString } from '@iabtechlabtcf/core';
import type { Decision } from '../types.ts';

/** Google Advertising Products in IAB's Global Vendor List. */
export const GOOGLE_VENDOR_ID = 755;

/**
 * Google Consent Mode's advertising signals as Google's tags read them from a TC string (Google's
 * "Consent mode TCF integration", with the advertiser consent mode flag set): nothing without
 * Google's own vendor consent; `ad_storage` needs purpose 1, `ad_user_data` purposes 1 and 7,
 * `ad_personalization` purposes 3 and 4. On a TCF channel the SDK sends these, not what the
 * channel's own purposes would give, so Consent Mode and the TC string never disagree.
 */
export function googleConsentMode(tcString: string): Record<string, Decision> {
  const model = TCString.decode(tcString);
  const consented = (...purposes: number[]) =>
    model.vendorConsents.has(GOOGLE_VENDOR_ID) && purposes.every((id) => model.purposeConsents.has(id))
      ? 'granted'
      : 'denied';
  return {
    ad_storage: consented(1),
    ad_user_data: consented(1, 7),
    ad_personalization: consented(3, 4),
  };
}
