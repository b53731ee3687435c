import { createHash } from 'node:crypto';
import type { Statement, Store } from '../../platform/db/store.ts';
import { recordKeyId } from '../../platform/idempotency/idempotency.repo.ts';
import type { IdempotencyRecord, KeyRecordOutcome } from '../../platform/idempotency/idempotency.scope.ts';
import { CONSENT_WRITE_PARAMS, consentWriteSql, KEY_PARAMS, type OutboxJob } from './consent-write.sql.ts';
import type { EvidenceRow } from './evidence.tables.ts';

/** One request's share of a batch: its events, and the Idempotency-Key record they commit with. */
export interface ConsentWrite {
  rows: EvidenceRow[];
  record: IdempotencyRecord | null;
}

const text = (value: string | null) => value;
const iso = (value: Date) => value.toISOString();

/** The record's columns, in consent-write.sql.ts's KEY_COLUMNS order, as text. */
function recordValues(r: IdempotencyRecord): Array<string | null> {
  return [
    r.organizationId,
    r.environment,
    r.scope,
    r.key,
    r.fingerprint,
    String(r.responseStatus),
    JSON.stringify(r.responseHeaders),
    text(r.responseBody),
    String(r.responseBodyEncrypted),
    r.requestId,
    iso(r.createdAt),
    iso(r.expiresAt),
  ];
}

/** The event's columns, in EVENT_COLUMNS order, as text (a new event has all its content). */
function eventValues(e: EvidenceRow): Array<string | null> {
  return [
    e.organizationId,
    e.id,
    e.environment,
    e.channelId,
    e.subjectPseudonym,
    e.decisions === null ? null : JSON.stringify(e.decisions),
    e.configVersion === null ? null : String(e.configVersion),
    e.policyVersion,
    e.source,
    e.language,
    e.gpc === null ? null : String(e.gpc),
    e.origin,
    e.userAgent,
    e.ipPrefix,
    e.region,
    e.regionSource,
    e.regime,
    e.gppString,
    e.tcString,
    e.tcf === null ? null : JSON.stringify(e.tcf),
    e.subjectKind ?? null,
    e.gpcHonoredShown === true ? 'true' : null,
    e.handoff == null ? null : JSON.stringify(e.handoff),
    e.importedFrom == null ? null : JSON.stringify(e.importedFrom),
    e.app == null ? null : JSON.stringify(e.app),
    e.outcome ?? null,
    iso(e.recordedAt),
    e.receiptHash,
    e.receiptTokenHash,
  ];
}

/** A statement named after its text: a process never sends two texts under one name. */
function namedStatement(text: string): Statement {
  return { name: `consent_write_${createHash('sha256').update(text).digest('hex').slice(0, 12)}`, text };
}

/**
 * Runs a batch of consent writes as the one statement of consent-write.sql.ts through
 * `store.statement`: on PostgreSQL a named statement (parsed and planned once per pooled
 * connection), on PGlite the same text. Resolves after the commit, with one
 * outcome per write: `taken` when its Idempotency-Key was already held (by a live record, a
 * concurrent batch that committed first, or an earlier write of this batch), and nothing of it
 * was written.
 */
export function createConsentWriteStatement(store: Store, outbox: OutboxJob | null) {
  const withTc = namedStatement(consentWriteSql(outbox, { tcStrings: true }));
  const withoutTc = namedStatement(consentWriteSql(outbox, { tcStrings: false }));

  return {
    async run(writes: ConsentWrite[], now: Date): Promise<KeyRecordOutcome[]> {
      const outcomes: KeyRecordOutcome[] = writes.map(() => 'stored');
      const columns: Array<Array<string | null>> = Array.from({ length: CONSENT_WRITE_PARAMS - 1 }, () => []);
      const keyNoOfWrite: Array<number | null> = [];
      const seen = new Set<string>();
      let keys = 0;
      writes.forEach((write, i) => {
        keyNoOfWrite.push(null);
        if (!write.record) return;
        const id = recordKeyId(write.record);
        // A second write of one key in the same batch loses to the first without asking the database.
        if (seen.has(id)) {
          outcomes[i] = 'taken';
          return;
        }
        seen.add(id);
        keyNoOfWrite[i] = ++keys;
        for (const [c, value] of recordValues(write.record).entries()) columns[c].push(value);
      });
      const keyNos = columns[CONSENT_WRITE_PARAMS - 2];
      writes.forEach((write, i) => {
        if (outcomes[i] === 'taken') return;
        const keyNo = keyNoOfWrite[i];
        for (const row of write.rows) {
          for (const [c, value] of eventValues(row).entries()) columns[KEY_PARAMS + c].push(value);
          keyNos.push(keyNo === null ? null : String(keyNo));
        }
      });
      const carriesTc = writes.some((write) => write.rows.some((row) => row.tcString !== null));
      const statement = carriesTc ? withTc : withoutTc;
      const rows = await store.statement<{ key_no: number }>(statement, [...columns, now.toISOString()]);
      const stored = new Set(rows.map((r) => Number(r.key_no)));
      writes.forEach((_, i) => {
        const keyNo = keyNoOfWrite[i];
        if (keyNo !== null && !stored.has(keyNo)) outcomes[i] = 'taken';
      });
      return outcomes;
    },
  };
}

export type ConsentWriteStatement = ReturnType<typeof createConsentWriteStatement>;
