import type { FastifyReply } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import { type CapturedResponse, jsonResponse } from './captured-response.ts';
import { idempotencyRepo, type RecordKey } from './idempotency.repo.ts';
import type { KeyedWrite, KeyRecordOutcome } from './idempotency.scope.ts';
import type { IdempotencyRecord } from './idempotency.tables.ts';

/** A statement that stores a key's record (with the writes it commits with, if any). */
type RecordWrite = (record: IdempotencyRecord) => Promise<KeyRecordOutcome>;

/**
 * Stores `response` under the key with `write`, and says who holds the key: null when this
 * request's record was stored, else the live record of the request that holds it (to replay).
 * No read first: the insert finds a held key. An expired record not yet purged holds the key too:
 * it is freed and the write runs once more.
 */
export async function storeUnderKey(
  deps: { store: Store; clock: Clock },
  recordKey: RecordKey,
  recordOf: (response: CapturedResponse, now: Date) => IdempotencyRecord,
  response: CapturedResponse,
  write: RecordWrite,
): Promise<IdempotencyRecord | null> {
  const { store, clock } = deps;
  for (let attempt = 0; ; attempt++) {
    const now = clock.now();
    if ((await write(recordOf(response, now))) === 'stored') return null;
    const holder = await idempotencyRepo.find(store.db, recordKey);
    if (holder && holder.expiresAt > now) return holder;
    if (attempt > 0) throw new Error('an Idempotency-Key reported taken has no live record');
    if (holder) await store.tx((tx) => idempotencyRepo.removeExpired(tx, recordKey, now));
  }
}

/**
 * The `request.keyedWrite` of one request on a `handlerCommits` route (see KeyedWrite). After the
 * handler, `holder` is the record to replay when the key was held, and `committed` says whether
 * this request's writes are stored (a refusal thrown after that is not stored again).
 */
export function createKeyedWrite(
  deps: { store: Store; clock: Clock },
  reply: FastifyReply,
  recordKey: RecordKey,
  recordOf: (response: CapturedResponse, now: Date) => IdempotencyRecord,
): KeyedWrite & { holder: IdempotencyRecord | null; committed: boolean } {
  return {
    holder: null,
    committed: false,
    async commit(status, payload, write) {
      const response = jsonResponse(reply, status, payload);
      this.holder = await storeUnderKey(deps, recordKey, recordOf, response, write);
      this.committed = this.holder === null;
      return this.committed ? 'committed' : 'replayed';
    },
  };
}
