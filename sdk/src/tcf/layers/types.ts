/**
 * The two TCF layers (IAB TCF policy, Appendix B): the first layer a visitor sees, and "Manage
 * options" with every purpose, feature and vendor. They draw the UI and report the visitor's choice;
 * tcf.js turns the choice into a TC string and the channel's own decisions.
 */
export interface TcfChoice {
  /** TCF purposes consented. */
  purposeConsents: number[];
  /** TCF purposes whose legitimate interest was NOT objected to (never 1 or 3–6). */
  purposeLegitimateInterests: number[];
  vendorConsents: number[];
  /** Vendors whose legitimate interest was NOT objected to. */
  vendorLegitimateInterests: number[];
  specialFeatureOptins: number[];
  /** The channel's own purposes (config.purposes); required ones are always granted. */
  decisions: Record<string, 'granted' | 'denied'>;
  /** The layer the choice was made on (the TC string's ConsentScreen): 1 the first, 2 the second. */
  consentScreen?: number;
  /** Google ATP providers consented (Additional Consent); absent: none. */
  acConsents?: number[];
}
