import { apiDate } from '../../platform/http/dates.ts';
import type { EvidenceHandoff, EvidenceRow } from './evidence.tables.ts';
import { maskPseudonym } from './pseudonym.ts';

/**
 * An evidence event as the API shows it, without its receipt: the exact object the
 * leaf hash covers when `pseudonym` is `unmasked`. Reads, exports and webhook payloads show it
 * `masked`. Only for rows not purged: a purged row has no content to show.
 */
export function evidenceEventBody(row: EvidenceRow, pseudonym: 'masked' | 'unmasked') {
  return {
    ...eventCore(row, pseudonym),
    ...regionMembers(row),
    ...gppMembers(row),
    ...tcfMembers(row),
    ...subjectKindMember(row),
    ...gpcHonoredMember(row),
    ...originMembers(row),
  };
}

export function eventCore(row: EvidenceRow, pseudonym: 'masked' | 'unmasked') {
  if (row.purgedAt !== null || row.subjectPseudonym === null) {
    throw new Error(`evidence event ${row.id} is purged; it has no content to show`);
  }
  return {
    id: row.id,
    type: 'consent.recorded' as const,
    channelId: row.channelId,
    environment: row.environment,
    subject: {
      pseudonym: pseudonym === 'masked' ? maskPseudonym(row.subjectPseudonym) : row.subjectPseudonym,
    },
    decisions: row.decisions ?? {},
    configVersion: row.configVersion as number,
    policyVersion: row.policyVersion as string,
    source: row.source as NonNullable<EvidenceRow['source']>,
    language: row.language,
    gpc: row.gpc as boolean,
    origin: row.origin,
    userAgent: row.userAgent,
    ipPrefix: row.ipPrefix,
    recordedAt: apiDate(row.recordedAt),
  };
}

/** `gppString`, only on an event sent with one: every other event's canonical form lacks it. */
export function gppMembers(row: EvidenceRow) {
  return row.gppString === null ? {} : { gppString: row.gppString };
}

/**
 * `tcString` and the `tcf` the service decoded from it (docs/guides/tcf.md), only on an event sent
 * with one: every other event's canonical form lacks both, so events recorded before TCF keep
 * their bytes and leaf hashes. `tcf`'s members in a fixed order (the export's COPY writes the same);
 * the legitimate interests, DisclosedVendors, policy version and consent screen only on events
 * recorded since the service keeps them (an older event's canonical form lacks them).
 */
export function tcfMembers(row: EvidenceRow) {
  if (row.tcString === null || row.tcf === null) return {};
  const { vendorListVersion, purposeConsents, vendorConsents, specialFeatureOptins } = row.tcf;
  const base = { vendorListVersion, purposeConsents, vendorConsents, specialFeatureOptins };
  const {
    purposeLegitimateInterests,
    vendorLegitimateInterests,
    vendorsDisclosed,
    policyVersion,
    consentScreen,
    publisherCustomConsents,
    addtlConsent,
  } = row.tcf;
  if (policyVersion === undefined) return { tcString: row.tcString, tcf: base };
  return {
    tcString: row.tcString,
    tcf: {
      ...base,
      purposeLegitimateInterests,
      vendorLegitimateInterests,
      vendorsDisclosed,
      policyVersion,
      consentScreen,
      // Each only on events that have it (the export's COPY writes the same).
      ...(publisherCustomConsents === undefined ? {} : { publisherCustomConsents }),
      ...(addtlConsent === undefined ? {} : { addtlConsent }),
    },
  };
}

/**
 * `region`, `regionSource` and `regime` (docs/regions.md), present only on events recorded since
 * regions exist (regionSource set): an older event's canonical form never had them, and its leaf
 * hash must stay what it was.
 */
export function regionMembers(row: EvidenceRow) {
  if (row.regionSource === null) return {};
  return {
    region: row.region,
    regionSource: row.regionSource,
    regime: row.regime as NonNullable<EvidenceRow['regime']>,
  };
}

/**
 * `subjectKind` (docs/guides/signed-in-visitors.md): "account" for a signed-in visitor's decision,
 * "device" otherwise, on every event recorded since accounts exist. Older events never had it (they
 * are all device decisions): their canonical form lacks it, so their leaf hashes stay what they were.
 */
export function subjectKindMember(row: EvidenceRow) {
  return row.subjectKind == null ? {} : { subjectKind: row.subjectKind };
}

/**
 * `gpcHonoredShown: true` (docs/guides/us-privacy.md), only on an event whose page showed that the
 * visitor's GPC signal was honoured: every other event's canonical form lacks it, so older events
 * keep their bytes and leaf hashes.
 */
export function gpcHonoredMember(row: EvidenceRow) {
  return row.gpcHonoredShown === true ? { gpcHonoredShown: true as const } : {};
}

/**
 * `handoff` (a decision handed over from a sibling domain or an app) and `importedFrom` (one imported
 * from the previous CMP), docs/guides/keep-the-choice.md, and `app` (an app channel's decision,
 * docs/guides/apps.md), each only on an event that has it: every other
 * event's canonical form lacks them, so events recorded before them keep their bytes and leaf hashes.
 * Members in a fixed order (the export's COPY writes the same).
 */
export function originMembers(row: EvidenceRow) {
  const { handoff, importedFrom, app } = row;
  return {
    ...(handoff == null ? {} : { handoff: handoffMember(handoff) }),
    ...(importedFrom == null
      ? {}
      : {
          importedFrom: {
            cmp: importedFrom.cmp,
            recordedAt: importedFrom.recordedAt,
            value: importedFrom.value,
          },
        }),
    ...(app == null ? {} : { app: { appId: app.appId, platform: app.platform, sdkVersion: app.sdkVersion } }),
  };
}

const handoffMember = (handoff: EvidenceHandoff) =>
  'fromApp' in handoff
    ? { fromApp: handoff.fromApp, eventId: handoff.eventId }
    : { fromOrigin: handoff.fromOrigin, eventId: handoff.eventId };
