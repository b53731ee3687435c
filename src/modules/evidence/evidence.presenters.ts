import { apiDate } from '../../platform/http/dates.ts';
import type { EvidenceRow } from './evidence.tables.ts';
import { maskPseudonym } from './pseudonym.ts';

/**
 * An evidence event as the API shows it (contract §6), without its receipt: the exact object the
 * leaf hash covers when `pseudonym` is `unmasked`. Reads, exports and webhook payloads show it
 * `masked`. Only for rows not purged: a purged row has no content to show.
 */
export function evidenceEventBody(row: EvidenceRow, pseudonym: 'masked' | 'unmasked') {
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

/** The event of `GET /v1/evidence/:id`: masked, with its receipt. */
export function presentEvidence(row: EvidenceRow) {
  return { ...evidenceEventBody(row, 'masked'), receipt: { hash: row.receiptHash } };
}

export type EvidenceEvent = ReturnType<typeof presentEvidence>;
