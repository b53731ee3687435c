import { AppError, type FieldError, validationFailed } from '../../../platform/http/errors.ts';
import type { Regime, RegionRule } from '../../regions/regions.schemas.ts';
import { isAssignedIsoCountry, resolveRegime } from '../../regions/regions.service.ts';
import { CONSENT_ONLY_PURPOSES } from '../tc-strings/tc-string-rules.ts';
import type { VendorListRow } from '../tcf.repo.ts';
import { isSampleVendorList } from '../vendor-list/vendor-list-shape.ts';
import { type GvlVendor, isDeleted, VENDOR_ID_LISTS } from '../vendor-list/vendor-list-view.ts';

/**
 * A channel's IAB TCF settings against the Global Vendor List (docs/guides/tcf.md): which vendor
 * ids may be chosen, what a config snapshot keeps of the chosen vendors, and when a change to them
 * must ask visitors again; the regime its `unknownRegion` gives a visitor, and the `cmpVersion` it
 * reports when it pins none.
 *
 * A service of pure rules, like additional-consent.service.ts: channels check and snapshot the
 * settings with them when a channel is saved, and sites and consent read a snapshot's regime and
 * CMP version, in code that holds no TcfService (a site's regional config is a pure function of
 * the site). These are TCF's own rules and types, so this file is where other modules reach them,
 * rather than tcf.service.ts passing on another file's exports.
 */

/**
 * The service's TCF release: a whole number raised with every change to tcf.js (sdk/src/tcf and what
 * it bundles), each listed in docs/tcf-changelog.md. A channel that does not pin its own `cmpVersion`
 * reports this one, in `ping` and in every TC string its visitors make, so that vendors and IAB's
 * validator can tell one behaviour of the CMP from another. Raise it, and add the changelog entry, in
 * the change that alters tcf.js; the docs test checks that the two agree.
 */
export const TCF_RELEASE = 4;

/** What a channel says of visitors whose region is unknown (channel `tcf.unknownRegion`). */
export type UnknownRegion = 'gdpr' | 'not_applicable';
export const UNKNOWN_REGIONS: readonly UnknownRegion[] = ['gdpr', 'not_applicable'];

/**
 * The regime of a visitor (docs/regions.md), with the TCF's rule for a region the service could not
 * resolve (no GeoIP database, a private address, an address the database does not know): on a TCF
 * channel such a visitor may be in the EEA or the UK, and a CMP that answered `gdprApplies: false`
 * would have vendors process their data without a legal basis, so the visitor is treated as one the
 * GDPR covers (opt-in, the TCF layers, `gdprApplies: true`), unless the channel set
 * `unknownRegion: "not_applicable"` (its audience is known to be elsewhere): then the region rules
 * decide, as on channels without TCF (docs/guides/tcf.md, "Visitors whose region is unknown").
 */
export function visitorRegime(
  rules: readonly RegionRule[],
  regionCode: string | null,
  tcf: { unknownRegion?: UnknownRegion } | null | undefined,
): Regime {
  if (regionCode === null && tcf && (tcf.unknownRegion ?? 'gdpr') === 'gdpr') return 'opt-in';
  return resolveRegime(rules, regionCode);
}

/** A channel's TCF settings as stored (the API's `tcf` field). */
export interface ChannelTcf {
  cmpId: number;
  /** Pinned by the channel; null: the service's TCF release (stored as 1 by channels saved before it). */
  cmpVersion: number | null;
  vendorIds: number[];
  publisherCountryCode: string;
  purposeOneTreatment: boolean;
  /** Absent in channels saved before restrictions existed: none. */
  publisherRestrictions?: PublisherRestriction[];
  /** Google Additional Consent's providers; absent in channels saved before it: null. */
  googleAdditionalConsent?: { providerIds: number[] } | null;
  /** Visitors whose region is unknown (visitorRegime); absent in channels saved before it: "gdpr". */
  unknownRegion?: UnknownRegion;
}

export interface PublisherRestriction {
  purposeId: number;
  type: 'not_allowed' | 'require_consent' | 'require_li';
  vendorIds: number[];
}

/**
 * A TCF channel's part of a config snapshot (the `tcf` of channels' VisitorConfig schema, which
 * visitor-config.ts checks against this type): its settings, the vendor list version it was made
 * with, and what each chosen vendor declared in that list.
 */
/** A provider of Google's ATP list as the layers name it (the list as mirrored when the version was made). */
export interface AtpProviderShown {
  id: number;
  name: string;
  policyUrl: string | null;
}

export interface SnapshotTcf extends Omit<ChannelTcf, 'publisherRestrictions' | 'googleAdditionalConsent'> {
  publisherRestrictions?: PublisherRestriction[];
  /** The channel's providers, and (snapshots made since the ATP mirror) their names and policies. */
  googleAdditionalConsent?: { providerIds: number[]; providers?: AtpProviderShown[] } | null;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  /** Absent from snapshots made before it: "floating". */
  reopenControl?: 'floating' | 'none';
  vendors: VendorDeclarations[];
}

interface VendorDeclarations {
  id: number;
  purposes: number[];
  legIntPurposes: number[];
  flexiblePurposes: number[];
  specialPurposes: number[];
  features: number[];
  specialFeatures: number[];
}

function vendorsOf(list: VendorListRow): Record<string, GvlVendor | undefined> {
  return (list.body.vendors ?? {}) as Record<string, GvlVendor | undefined>;
}

/**
 * The settings as stored, defaults applied (the input's cmpVersion and purposeOneTreatment are
 * optional). A cmpVersion left out is null: the channel follows the service's TCF release.
 */
export function tcfSettings(input: {
  cmpId: number;
  cmpVersion?: number | null;
  vendorIds: number[];
  publisherCountryCode: string;
  purposeOneTreatment?: boolean;
  publisherRestrictions?: PublisherRestriction[];
  googleAdditionalConsent?: { providerIds: number[] } | null;
  unknownRegion?: UnknownRegion;
}): ChannelTcf {
  return {
    cmpId: input.cmpId,
    cmpVersion: input.cmpVersion ?? null,
    vendorIds: [...input.vendorIds],
    publisherCountryCode: input.publisherCountryCode,
    purposeOneTreatment: input.purposeOneTreatment ?? false,
    publisherRestrictions: (input.publisherRestrictions ?? []).map((r) => ({
      purposeId: r.purposeId,
      type: r.type,
      vendorIds: [...r.vendorIds].sort((a, b) => a - b),
    })),
    googleAdditionalConsent: input.googleAdditionalConsent
      ? { providerIds: [...input.googleAdditionalConsent.providerIds].sort((a, b) => a - b) }
      : null,
    unknownRegion: input.unknownRegion ?? 'gdpr',
  };
}

/**
 * The settings' own rules, before any vendor list is needed: the publisher's country is a code
 * ISO 3166-1 assigns (the schema checks only its shape, and a TC string carries it as given).
 */
export function assertTcfSettings(settings: ChannelTcf): void {
  const errors: FieldError[] = [];
  if (!isAssignedIsoCountry(settings.publisherCountryCode)) {
    errors.push({
      path: '/tcf/publisherCountryCode',
      message: `"${settings.publisherCountryCode}" is not an assigned ISO 3166-1 alpha-2 country code`,
    });
  }
  errors.push(...restrictionErrors(settings));
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * Restrictions that a TC string could not carry or that say nothing: a vendor the channel did not
 * choose; legitimate interest required for purpose 1 or 3–6 (the policy allows them on consent
 * only); one vendor restricted twice for one purpose (a string carries one type per vendor and
 * purpose).
 */
function restrictionErrors(settings: ChannelTcf): FieldError[] {
  const errors: FieldError[] = [];
  const chosen = new Set(settings.vendorIds);
  const seen = new Map<string, number>();
  (settings.publisherRestrictions ?? []).forEach((restriction, index) => {
    const path = `/tcf/publisherRestrictions/${index}`;
    if (restriction.type === 'require_li' && CONSENT_ONLY_PURPOSES.includes(restriction.purposeId)) {
      errors.push({
        path: `${path}/type`,
        message: `purpose ${restriction.purposeId} takes consent only: it cannot be restricted to legitimate interest`,
      });
    }
    restriction.vendorIds.forEach((id, at) => {
      if (!chosen.has(id)) {
        errors.push({
          path: `${path}/vendorIds/${at}`,
          message: `vendor ${id} is not one of the channel's vendorIds`,
        });
      }
      const key = `${restriction.purposeId}:${id}`;
      const earlier = seen.get(key);
      if (earlier !== undefined && earlier !== index) {
        errors.push({
          path: `${path}/vendorIds/${at}`,
          message: `vendor ${id} is already restricted for purpose ${restriction.purposeId} (publisherRestrictions/${earlier})`,
        });
      }
      seen.set(key, earlier ?? index);
    });
  });
  return errors;
}

/**
 * Checks settings about to be written against the newest vendor list: 409 invalid_state when the
 * mirror has none yet (nothing to check the vendors against), 422 naming each vendor id that is not
 * in it or was deleted from it.
 */
export function assertTcfVendors(
  list: VendorListRow | null,
  settings: ChannelTcf,
  now: Date,
  environment: 'test' | 'live' = 'test',
): void {
  if (!list) {
    throw new AppError(
      'invalid_state',
      'No IAB Global Vendor List has been loaded yet (the worker fetches it from TCF_GVL_URL now that it was asked for: try again in a few seconds); TCF settings can be saved once it has.',
    );
  }
  // The sample list shipped to try TCF offline (its `_sample` marker) names no real vendor: a live
  // channel never uses it.
  if (isSampleVendorList(list.body)) {
    if (environment === 'live') {
      throw new AppError(
        'invalid_state',
        `The vendor list held (version ${list.vendorListVersion}) is the sample list shipped to try TCF offline, for test channels only: a live channel needs IAB's list (set TCF_GVL_URL to IAB's host or a copy of its files).`,
      );
    }
  }
  const vendors = vendorsOf(list);
  const errors: FieldError[] = [];
  settings.vendorIds.forEach((id, index) => {
    const vendor = vendors[String(id)];
    if (!vendor) {
      errors.push({
        path: `/tcf/vendorIds/${index}`,
        message: `vendor ${id} is not in the Global Vendor List (version ${list.vendorListVersion})`,
      });
    } else if (isDeleted(vendor, now)) {
      errors.push({
        path: `/tcf/vendorIds/${index}`,
        message: `vendor ${id} was deleted from the Global Vendor List (version ${list.vendorListVersion})`,
      });
    }
  });
  errors.push(...unapplicableRestrictions(vendors, settings));
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * Checks a channel's Additional Consent providers against Google's ATP list as mirrored: 409
 * invalid_state when no list is held yet (the caller has asked the worker for it: the ids cannot be
 * checked, and a provider visitors would see only as a number is no disclosure), 422 naming each id
 * the list does not have.
 */
export function assertAtpProviders(
  providers: ReadonlyMap<number, unknown> | null,
  settings: ChannelTcf,
): void {
  const chosen = settings.googleAdditionalConsent?.providerIds;
  if (!chosen) return;
  if (!providers) {
    throw new AppError(
      'invalid_state',
      'Google’s ATP list has not been loaded yet (the worker fetches it from GOOGLE_ATP_URL now that it was asked for: try again in a few seconds); googleAdditionalConsent can be saved once it has.',
    );
  }
  const unknown = chosen.filter((id) => !providers.has(id));
  if (unknown.length > 0) {
    const shown =
      unknown.slice(0, 20).join(', ') + (unknown.length > 20 ? ` and ${unknown.length - 20} more` : '');
    throw validationFailed([
      {
        path: '/tcf/googleAdditionalConsent/providerIds',
        message: `provider${unknown.length > 1 ? 's' : ''} ${shown} ${unknown.length > 1 ? 'are' : 'is'} not on Google’s ATP list (GOOGLE_ATP_URL)`,
      },
    ]);
  }
}

/**
 * Restrictions a TC string cannot carry for that vendor (IAB's encoder drops them, so a visitor's
 * string could never match): not_allowed for a purpose the vendor does not declare; require_consent
 * for a purpose it does not declare as flexible on legitimate interest; require_li for one it does
 * not declare as flexible on consent.
 */
function unapplicableRestrictions(
  vendors: Record<string, GvlVendor | undefined>,
  settings: ChannelTcf,
): FieldError[] {
  const errors: FieldError[] = [];
  (settings.publisherRestrictions ?? []).forEach(({ purposeId, type, vendorIds }, index) => {
    vendorIds.forEach((id, at) => {
      const vendor = vendors[String(id)];
      if (!vendor) return; // reported as not chosen, or not in the list
      const has = (list: number[] | undefined) => Array.isArray(list) && list.includes(purposeId);
      const flexible = has(vendor.flexiblePurposes);
      const applies =
        type === 'not_allowed'
          ? has(vendor.purposes) || has(vendor.legIntPurposes)
          : type === 'require_consent'
            ? flexible && has(vendor.legIntPurposes)
            : flexible && has(vendor.purposes);
      if (!applies) {
        errors.push({
          path: `/tcf/publisherRestrictions/${index}/vendorIds/${at}`,
          message:
            type === 'not_allowed'
              ? `vendor ${id} does not declare purpose ${purposeId}: there is nothing to disallow`
              : `vendor ${id} does not declare purpose ${purposeId} as flexible on ${type === 'require_consent' ? 'legitimate interest' : 'consent'}: a TC string cannot carry this restriction for it`,
        });
      }
    });
  });
  return errors;
}

/**
 * The snapshot's `tcf`: the settings, the list version and what each chosen vendor declares in it,
 * by vendor id. A vendor deleted since it was chosen is left out: it can no longer be asked about.
 */
export function snapshotTcf(
  settings: ChannelTcf,
  list: VendorListRow,
  now: Date,
  reopenControl: SnapshotTcf['reopenControl'] = 'floating',
  /** Google's ATP list as mirrored (null: none held): the providers' names go into the version. */
  atp: ReadonlyMap<number, AtpProviderShown> | null = null,
): SnapshotTcf {
  const vendors = vendorsOf(list);
  const declared: VendorDeclarations[] = [];
  for (const id of [...settings.vendorIds].sort((a, b) => a - b)) {
    const vendor = vendors[String(id)];
    if (!vendor || isDeleted(vendor, now)) continue;
    declared.push({
      id,
      purposes: ids(vendor.purposes),
      legIntPurposes: ids(vendor.legIntPurposes),
      flexiblePurposes: ids(vendor.flexiblePurposes),
      specialPurposes: ids(vendor.specialPurposes),
      features: ids(vendor.features),
      specialFeatures: ids(vendor.specialFeatures),
    });
  }
  const ac = settings.googleAdditionalConsent;
  return {
    ...settings,
    ...(ac
      ? {
          googleAdditionalConsent: {
            providerIds: [...ac.providerIds],
            // A provider the list no longer has keeps its id only (the layers then name it by id).
            providers: ac.providerIds.flatMap((id) => {
              const p = atp?.get(id);
              return p ? [{ id, name: p.name, policyUrl: p.policyUrl }] : [];
            }),
          },
        }
      : {}),
    vendorIds: [...settings.vendorIds],
    vendorListVersion: list.vendorListVersion,
    tcfPolicyVersion: list.tcfPolicyVersion,
    reopenControl,
    vendors: declared,
  };
}

const ids = (list: number[] | undefined): number[] =>
  Array.isArray(list) ? [...list].sort((a, b) => a - b) : [];

/**
 * Whether the TCF part of a new version is a material change (visitors are asked again): TCF
 * turned on; a new TCF policy version; purpose 1's treatment changed; or a vendor that visitors did
 * not see before, or one that now declares a purpose, legitimate interest, special purpose, feature
 * or special feature it did not; or a Google Additional Consent provider visitors did not see before.
 * A vendor or provider removed, or a vendor declaring less, is not: less is done with the visitor's
 * data, not more. A new vendor list version alone is not either.
 */
export function isTcfReconsent(previous: SnapshotTcf | null, next: SnapshotTcf | null): boolean {
  if (next === null) return false;
  if (previous === null) return true;
  if (previous.tcfPolicyVersion !== next.tcfPolicyVersion) return true;
  if (previous.purposeOneTreatment !== next.purposeOneTreatment) return true;
  const before = new Map(previous.vendors.map((vendor) => [vendor.id, vendor]));
  for (const vendor of next.vendors) {
    const old = before.get(vendor.id);
    if (!old) return true;
    for (const declaration of VENDOR_ID_LISTS) {
      const had = new Set(old[declaration]);
      if (vendor[declaration].some((id) => !had.has(id))) return true;
    }
  }
  const providersBefore = new Set(previous.googleAdditionalConsent?.providerIds ?? []);
  return (next.googleAdditionalConsent?.providerIds ?? []).some((id) => !providersBefore.has(id));
}
