import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { SnapshotReader } from '../../platform/db/store.ts';
import {
  type EvidenceExportKey,
  evidenceExportChannels,
  evidenceExportCopy,
  evidenceExportFirsts,
  evidenceExportKeyOf,
  evidenceExportWhere,
} from '../evidence/evidence-export.sql.ts';
import type { ExportSelection } from './evidence-reader.ts';
import type { WrittenExport } from './export-writer.ts';

/**
 * Undoes the one escape COPY's text format applies to a JSON line: every backslash doubled. A line
 * holds no control character (to_json and jsonb escape them) and no \x01 (the unused delimiter),
 * so a backslash followed by anything but a backslash means the line was not what this file
 * builds: that fails the export instead of writing a wrong byte. A pair may straddle two chunks.
 * Chunks without a backslash (nearly all) pass through as they are.
 */
export function createCopyTextUnescaper() {
  let pairOpen = false; // the previous chunk ended with the first backslash of a pair
  const unescapeChunk = (chunk: Buffer): Buffer => {
    let from = 0;
    if (pairOpen) {
      if (chunk[0] !== 0x5c) throw new Error('COPY text: an escape other than a doubled backslash');
      pairOpen = false;
      from = 1;
    }
    let at = chunk.indexOf(0x5c, from);
    if (at === -1) return from === 0 ? chunk : chunk.subarray(from);
    const out = Buffer.allocUnsafe(chunk.length);
    let length = 0;
    while (at !== -1) {
      length += chunk.copy(out, length, from, at + 1);
      if (at + 1 === chunk.length) {
        pairOpen = true;
        return out.subarray(0, length);
      }
      if (chunk[at + 1] !== 0x5c) throw new Error('COPY text: an escape other than a doubled backslash');
      from = at + 2;
      at = chunk.indexOf(0x5c, from);
    }
    length += chunk.copy(out, length, from);
    return out.subarray(0, length);
  };
  /** After the last chunk: a pair left open means the stream was cut inside a line. */
  const finish = () => {
    if (pairOpen) throw new Error('COPY text: the output ended inside an escape');
  };
  return { unescapeChunk, finish };
}

/**
 * Lines per batch: each batch is one COPY in a savepoint of the export's transaction, and the locks
 * it takes on evidence_events are released when it ends (snapshot-read.ts). About 40 ms of
 * PostgreSQL's time per batch, so retention, which waits at most 200 ms for a lock, gets in between
 * two; large enough that the batches' extra statements cost little.
 */
export const EXPORT_COPY_BATCH_ROWS = 10_000;

/** How much of a line's start is kept to read its id (`{"id":"…"` comes first). */
const LINE_HEAD_BYTES = 128;

/**
 * Keeps the start of the last complete line of a stream of chunks: where the next batch begins is
 * read from it (its id). Only a few bytes per chunk are copied.
 */
function lastLineHead() {
  let partial = Buffer.alloc(0); // the start of the line not yet ended
  let last: Buffer | null = null;
  return {
    push(chunk: Buffer) {
      const end = chunk.lastIndexOf(10);
      if (end === -1) {
        if (partial.length < LINE_HEAD_BYTES)
          partial = Buffer.concat([partial, chunk.subarray(0, LINE_HEAD_BYTES - partial.length)]);
        return;
      }
      const before = end === 0 ? -1 : chunk.lastIndexOf(10, end - 1);
      last =
        before === -1
          ? Buffer.concat([partial, chunk.subarray(0, Math.min(end, LINE_HEAD_BYTES))])
          : Buffer.from(chunk.subarray(before + 1, Math.min(end, before + 1 + LINE_HEAD_BYTES)));
      partial = Buffer.from(chunk.subarray(end + 1, end + 1 + LINE_HEAD_BYTES));
    },
    /** The id of the last complete line. */
    id(): string {
      const found = last && /^\{"id":"([A-Za-z0-9_-]+)"/.exec(last.toString('latin1'));
      if (!found) throw new Error('COPY text: a line that does not start with its id');
      return found[1];
    },
  };
}

/**
 * A JSONL export at the database's pace (PostgreSQL only): PostgreSQL builds every line and streams
 * them with `COPY … TO STDOUT`, in the ledger's order (recordedAt, then id); here the bytes are only
 * hashed, counted and written to `sink`, waiting for it to drain (memory stays flat). Text format,
 * whose only change to a JSON line is doubling its backslashes (undone here, see
 * createCopyTextUnescaper): PostgreSQL's CSV output looks at every byte for its quote and
 * delimiter, which cost 0.14 s more per 1 M lines than the text format's escaping.
 *
 * One snapshot for the whole file, read in batches of EXPORT_COPY_BATCH_ROWS (snapshot-read.ts):
 * every line is the event as it was when the export's transaction began, so the file is one
 * consistent set however long it takes, yet no lock on evidence_events is held between batches, so
 * retention never waits behind an export (nor, with it, every tenant's reads and writes). Each batch
 * starts after the last line of the one before, at its exact (recordedAt, id). A partition retention
 * drops while the export runs (its events expired) is gone for the batches that follow.
 */
export async function copyJsonlExport(options: {
  snapshot: SnapshotReader;
  selection: ExportSelection;
  sink: Writable;
  /** Called between batches (the job's heartbeat): no lock is held then. */
  progress?: () => Promise<void>;
  batchRows?: number;
}): Promise<WrittenExport> {
  const { sink, selection } = options;
  const batchRows = options.batchRows ?? EXPORT_COPY_BATCH_ROWS;
  let sinkError: Error | null = null;
  sink.on('error', (error: Error) => {
    sinkError ??= error;
  });
  return options.snapshot(async (session) => {
    const where = evidenceExportWhere(session.literal, selection);
    // Each channel's first recordedAt, for the file's expiry, in the same snapshot.
    const firsts = await session.batch(async (reads) => {
      const channels = await reads.query<{ channel_id: string }>(
        evidenceExportChannels(session.literal, selection),
      );
      if (channels.length === 0) return [];
      const ids = channels.map((c) => c.channel_id);
      const rows = await reads.query<{ channel_id: string; first: Date | null }>(
        evidenceExportFirsts(session.literal, where, ids),
      );
      return rows.filter((r): r is { channel_id: string; first: Date } => r.first !== null);
    });
    const hash = createHash('sha256');
    let byteSize = 0;
    let lines = 0;
    let after: EvidenceExportKey | null = null;
    for (;;) {
      const next: EvidenceExportKey | null = await session.batch(async (reads) => {
        const copyText = createCopyTextUnescaper();
        const head = lastLineHead();
        let count = 0;
        for await (const copied of reads.copyOut(
          evidenceExportCopy(session.literal, where, after, batchRows),
        )) {
          if (sinkError) throw sinkError;
          const chunk = copyText.unescapeChunk(copied);
          if (chunk.length === 0) continue;
          hash.update(chunk);
          byteSize += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
          head.push(chunk);
          if (!sink.write(chunk)) await once(sink, 'drain');
        }
        copyText.finish();
        lines += count;
        if (count < batchRows) return null;
        const id = head.id();
        const [key] = await reads.query<{ recorded_at: string }>(
          evidenceExportKeyOf(session.literal, selection, id),
        );
        // Found: the batch's COPY still holds its partition's lock, so no one has dropped it since.
        if (!key) throw new Error(`export: the last event read (${id}) is no longer there`);
        return { recordedAt: key.recorded_at, id };
      });
      if (sinkError) throw sinkError;
      await options.progress?.();
      if (next === null) break;
      after = next;
    }
    const firstRecordedAt = new Map(firsts.map((r) => [r.channel_id, r.first]));
    return { rowCount: lines, byteSize, sha256: hash.digest('hex'), firstRecordedAt };
  });
}
