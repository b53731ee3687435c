import type { Decisions, SiteConfig } from '../../types.ts';
import type { Disclosure } from './disclosure.ts';
import type { TcfChoice } from './types.ts';

/*
 * "Accept all" and "Reject all" as choices, with no DOM: the layers' buttons, the page's
 * acceptAll() and rejectAll(), and the headless core (packages/core) all make the same choice.
 */

const ownDecisions = (config: SiteConfig, grant: boolean): Decisions =>
  Object.fromEntries(config.purposes.map((p) => [p.key, p.required || grant ? 'granted' : 'denied']));

/** "Accept all": everything disclosed, including every legitimate interest (nothing objected to). */
export function acceptAll(d: Disclosure, config: SiteConfig): TcfChoice {
  return {
    purposeConsents: d.consentPurposes,
    purposeLegitimateInterests: d.liPurposes,
    vendorConsents: d.consentVendors,
    vendorLegitimateInterests: d.liVendors,
    specialFeatureOptins: d.specialFeatures,
    decisions: ownDecisions(config, true),
    acConsents: config.tcf?.googleAdditionalConsent?.providerIds ?? [],
  };
}

/**
 * "Reject all" refuses every consent and also objects to every legitimate interest: a visitor who
 * rejects everything expects nothing optional to happen, and the first layer says so in words.
 */
export function rejectAll(config: SiteConfig): TcfChoice {
  return {
    purposeConsents: [],
    purposeLegitimateInterests: [],
    vendorConsents: [],
    vendorLegitimateInterests: [],
    specialFeatureOptins: [],
    decisions: ownDecisions(config, false),
  };
}
