import type { GVL } from '@iabtechlabtcf/core';
import type { TcfConfig } from '../../types.ts';
import { CONSENT_ONLY_PURPOSES } from './disclosure.ts';

type Vendor = GVL['vendors'][string];
type Restrictions = NonNullable<TcfConfig['publisherRestrictions']>;

/**
 * A vendor's declarations as the channel's publisher restrictions leave them, which is what the
 * layers offer and what "Accept all" grants: a purpose `not_allowed` for the vendor is dropped from
 * both its consent and its legitimate-interest purposes; `require_consent` moves a flexible
 * purpose the vendor declares on legitimate interest to consent; `require_li` moves a flexible
 * purpose it declares on consent to legitimate interest (never purposes 1 and 3–6, which take
 * consent only). A restriction a vendor's declaration cannot take (not flexible) changes nothing,
 * as IAB's encoder drops it from the string too.
 */
export function restrictedVendor(vendor: Vendor, restrictions: Restrictions): Vendor {
  let purposes = vendor.purposes;
  let legIntPurposes = vendor.legIntPurposes;
  const flexible = vendor.flexiblePurposes ?? [];
  for (const { purposeId: id, type, vendorIds } of restrictions) {
    if (!vendorIds.includes(vendor.id)) continue;
    const without = (ids: number[]) => ids.filter((p) => p !== id);
    if (type === 'not_allowed') {
      purposes = without(purposes);
      legIntPurposes = without(legIntPurposes);
    } else if (!flexible.includes(id)) {
    } else if (type === 'require_consent' && legIntPurposes.includes(id)) {
      legIntPurposes = without(legIntPurposes);
      purposes = [...without(purposes), id].sort((a, b) => a - b);
    } else if (type === 'require_li' && purposes.includes(id) && !CONSENT_ONLY_PURPOSES.includes(id)) {
      purposes = without(purposes);
      legIntPurposes = [...without(legIntPurposes), id].sort((a, b) => a - b);
    }
  }
  if (purposes === vendor.purposes && legIntPurposes === vendor.legIntPurposes) return vendor;
  return { ...vendor, purposes, legIntPurposes };
}

/**
 * The slice as the layers see it: the same list with every vendor's declarations restricted. Only
 * the layers and what they offer read it; the encoder keeps the list as IAB published it (it
 * checks each restriction against the vendor's own declaration).
 */
export function restrictedList(gvl: GVL, tcf: Pick<TcfConfig, 'publisherRestrictions'>): GVL {
  const restrictions = tcf.publisherRestrictions ?? [];
  if (!restrictions.length) return gvl;
  const vendors = Object.fromEntries(
    Object.entries(gvl.vendors).map(([id, vendor]) => [id, restrictedVendor(vendor, restrictions)]),
  );
  return Object.create(gvl, { vendors: { value: vendors } });
}
