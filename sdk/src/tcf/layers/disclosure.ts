import type { GVL } from '@iabtechlabtcf/core';

/**
 * What the channel's vendors declare, folded into what the layers must disclose and what a visitor
 * can allow. The slice the layers get holds the channel's vendors only, so every vendor in it is
 * disclosed (and goes into the DisclosedVendors segment).
 */
export interface Disclosure {
  vendorIds: number[];
  /** Purposes some vendor asks consent for. */
  consentPurposes: number[];
  /** Purposes some vendor claims a legitimate interest for: never 1, 3, 4, 5 or 6. */
  liPurposes: number[];
  specialPurposes: number[];
  features: number[];
  specialFeatures: number[];
  /** Vendors that need consent (a purpose on consent, or a special feature). */
  consentVendors: number[];
  /** Vendors with at least one legitimate interest the visitor can object to. */
  liVendors: number[];
}

/**
 * The TCF policy allows no legitimate interest for storage and access (purpose 1) nor for the
 * profile purposes 3 to 6: those take consent only, whatever a vendor declares.
 */
export const CONSENT_ONLY_PURPOSES = [1, 3, 4, 5, 6];

export const allowedLegInt = (purposes: number[]) =>
  purposes.filter((id) => !CONSENT_ONLY_PURPOSES.includes(id));

const sorted = (ids: Iterable<number>) => Array.from(new Set(ids)).sort((a, b) => a - b);

/**
 * `purposeOneTreatment`: the publisher's country does not ask consent for storing or reading
 * information on a device, so purpose 1 is neither disclosed nor asked for (the string says so).
 */
export function disclosureOf(gvl: GVL, options: { purposeOneTreatment?: boolean } = {}): Disclosure {
  const vendors = Object.values(gvl.vendors).filter((v) => !v.deletedDate);
  const collect = (pick: (v: (typeof vendors)[number]) => number[]) => sorted(vendors.flatMap(pick));
  const consentPurposes = (v: (typeof vendors)[number]) =>
    options.purposeOneTreatment ? v.purposes.filter((id) => id !== 1) : v.purposes;
  return {
    vendorIds: sorted(vendors.map((v) => v.id)),
    consentPurposes: collect(consentPurposes),
    liPurposes: collect((v) => allowedLegInt(v.legIntPurposes)),
    specialPurposes: collect((v) => v.specialPurposes),
    features: collect((v) => v.features),
    specialFeatures: collect((v) => v.specialFeatures),
    consentVendors: sorted(
      vendors.filter((v) => consentPurposes(v).length || v.specialFeatures.length).map((v) => v.id),
    ),
    liVendors: sorted(vendors.filter((v) => allowedLegInt(v.legIntPurposes).length).map((v) => v.id)),
  };
}

export interface FirstLayerItems {
  /** Stacks, each covering purposes and special features not shown otherwise. */
  stacks: number[];
  purposes: number[];
  specialFeatures: number[];
}

/**
 * The first layer may name stacks instead of the purposes and special features they group, but
 * nothing may be presented twice (the TCF policy's rule for stacks). Greedy: the
 * stack covering most of what is still unshown first, taking only stacks whose every item the
 * vendors actually pursue (a stack naming a purpose nobody pursues would overstate the processing).
 */
export function firstLayerItems(gvl: GVL, d: Disclosure): FirstLayerItems {
  const purposes = new Set([...d.consentPurposes, ...d.liPurposes]);
  const specialFeatures = new Set(d.specialFeatures);
  const candidates = Object.values(gvl.stacks || {})
    .filter((s) => s.purposes.length + s.specialFeatures.length > 0)
    .filter((s) => s.purposes.every((p) => purposes.has(p)))
    .filter((s) => s.specialFeatures.every((f) => specialFeatures.has(f)))
    .sort(
      (a, b) =>
        b.purposes.length + b.specialFeatures.length - (a.purposes.length + a.specialFeatures.length) ||
        a.id - b.id,
    );
  const stacks: number[] = [];
  for (const stack of candidates) {
    const free =
      stack.purposes.every((p) => purposes.has(p)) &&
      stack.specialFeatures.every((f) => specialFeatures.has(f));
    if (!free) continue;
    stacks.push(stack.id);
    for (const p of stack.purposes) purposes.delete(p);
    for (const f of stack.specialFeatures) specialFeatures.delete(f);
  }
  return { stacks, purposes: sorted(purposes), specialFeatures: sorted(specialFeatures) };
}
