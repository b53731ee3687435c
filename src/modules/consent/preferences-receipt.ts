import type { Static } from '@sinclair/typebox';
import { apiDate } from '../../platform/http/dates.ts';
import { envelope } from '../../platform/http/schemas.ts';
import type { RecordedEvent } from '../evidence/evidence.service.ts';
import type { PreferencesReceipt } from './consent.schemas.ts';

/**
 * The 201 of a recorded decision (`{data: {id, recordedAt, receipt}}`): built before the event is
 * stored, since a write with an Idempotency-Key stores this answer in the same statement.
 */
export function preferencesAnswer(event: RecordedEvent, receiptUrl: string) {
  const { row } = event;
  const receipt: Static<typeof PreferencesReceipt> = {
    id: row.id,
    recordedAt: apiDate(row.recordedAt),
    receipt: { hash: row.receiptHash, url: receiptUrl },
  };
  return envelope(receipt);
}
