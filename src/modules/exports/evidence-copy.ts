import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { SnapshotReader } from '../../platform/db/store.ts';
import {
  evidenceExportCopy,
  evidenceExportFirsts,
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

/** Lines between two `progress` calls (the job's heartbeat), as the batch reader's batch size. */
const PROGRESS_LINES = 5000;

/**
 * A JSONL export at the database's pace (issue 23, PostgreSQL only): PostgreSQL builds every line
 * and streams them with `COPY … TO STDOUT`, in the ledger's order (recordedAt, then id); here the
 * bytes are only hashed, counted and written to `sink`, waiting for it to drain (memory stays
 * flat). Text format, whose only change to a JSON line is doubling its backslashes (undone here,
 * see createCopyTextUnescaper): PostgreSQL's CSV output looks at every byte for its quote and
 * delimiter, which cost 0.14 s more per 1 M lines than the text format's escaping. One snapshot
 * for the whole file: the COPY's transaction's, which the first-recordedAt query imports.
 */
export async function copyJsonlExport(options: {
  snapshot: SnapshotReader;
  selection: ExportSelection;
  sink: Writable;
  progress?: () => Promise<void>;
}): Promise<WrittenExport> {
  const { sink } = options;
  let sinkError: Error | null = null;
  sink.on('error', (error: Error) => {
    sinkError ??= error;
  });
  return options.snapshot(async (session) => {
    const where = evidenceExportWhere(session.literal, options.selection);
    // Each channel's first recordedAt, read in the same snapshot on a second connection while the
    // lines stream: the scan costs about 0.15 s per 1 M events, which ran before the COPY when it
    // shared its connection. Awaited after the lines; a failure before that must not go unhandled.
    const firsts = session.alongside<{ channel_id: string; first: Date }>(evidenceExportFirsts(where));
    firsts.catch(() => {});
    const stream = session.copyOut(evidenceExportCopy(where));
    const hash = createHash('sha256');
    let byteSize = 0;
    let lines = 0;
    let sinceProgress = 0;
    const copyText = createCopyTextUnescaper();
    for await (const copied of stream) {
      if (sinkError) throw sinkError;
      const chunk = copyText.unescapeChunk(copied);
      if (chunk.length === 0) continue;
      hash.update(chunk);
      byteSize += chunk.length;
      let count = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count++;
      lines += count;
      sinceProgress += count;
      if (!sink.write(chunk)) await once(sink, 'drain');
      if (sinceProgress >= PROGRESS_LINES) {
        sinceProgress = 0;
        await options.progress?.();
      }
    }
    copyText.finish();
    if (sinkError) throw sinkError;
    const firstRecordedAt = new Map((await firsts).map((r) => [r.channel_id, r.first]));
    return { rowCount: lines, byteSize, sha256: hash.digest('hex'), firstRecordedAt };
  });
}
