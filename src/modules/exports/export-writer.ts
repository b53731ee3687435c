import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { EvidenceRow } from '../evidence/evidence.service.ts';
import { evidenceWithReceipt } from '../evidence/evidence.service.ts';
import { createEncoder } from './export-formats.ts';
import type { ExportFormat } from './exports.tables.ts';

/** One line of an export before encoding: the event as `GET /v1/evidence/:id` shows it, unmasked. */
export type ExportLine = Record<string, unknown>;

/**
 * Adds to an export what another module knows (the ledger's inclusion proofs): members on each
 * line and text after the last one. Built once per export, called once per batch, so it can fetch
 * what a batch needs in one query.
 */
export interface ExportDecorator {
  /** Extra CSV columns (dotted paths into the decorated line) the decorated lines carry. */
  csvColumns: readonly string[];
  /** Adds members to the lines of one batch, in place (e.g. `ledger: {leafIndex, auditPath}`). */
  decorate(items: Array<{ line: ExportLine; row: EvidenceRow }>): Promise<void>;
  /** Encoded text written after the last line (JSONL: `{"treeHead": …}` and a newline), or ''. */
  trailer(format: ExportFormat): Promise<string>;
}

export interface WrittenExport {
  rowCount: number;
  byteSize: number;
  sha256: string;
  /** First recordedAt per channel, for capping the file's expiry at the evidence's retention. */
  firstRecordedAt: Map<string, Date>;
}

/**
 * The line of an event: exactly the object `GET /v1/evidence/:id` shows (same members, same order)
 * except that the pseudonym is the full one; the subject id itself was never stored.
 */
export function exportLine(row: EvidenceRow): ExportLine {
  return evidenceWithReceipt(row, 'unmasked');
}

/**
 * Streams batches of events into `sink`, hashing and counting the exact bytes written, and waits
 * for the sink to drain before the next batch, so memory holds one batch at most. `afterBatch` runs
 * between batches (the job's heartbeat keeps its lease there).
 */
export async function writeExport(options: {
  format: ExportFormat;
  batches: AsyncIterable<EvidenceRow[]>;
  sink: Writable;
  decorator?: ExportDecorator;
  afterBatch?: () => Promise<void>;
}): Promise<WrittenExport> {
  const { format, sink, decorator } = options;
  const encoder = createEncoder(format, decorator?.csvColumns);
  const hash = createHash('sha256');
  const result: WrittenExport = { rowCount: 0, byteSize: 0, sha256: '', firstRecordedAt: new Map() };
  // An error the stream emits while we are not awaiting it must not crash the process: keep it.
  // (The listener stays: the file's commit or abort still touches the stream after we return.)
  let sinkError: Error | null = null;
  sink.on('error', (error: Error) => {
    sinkError ??= error;
  });

  async function write(text: string) {
    if (text === '') return;
    if (sinkError) throw sinkError;
    const bytes = Buffer.from(text, 'utf8');
    hash.update(bytes);
    result.byteSize += bytes.length;
    if (!sink.write(bytes)) await once(sink, 'drain');
    if (sinkError) throw sinkError;
  }

  await write(encoder.header());
  for await (const rows of options.batches) {
    const items = rows.map((row) => ({ line: exportLine(row), row }));
    if (decorator) await decorator.decorate(items);
    await write(items.map((item) => encoder.line(item.line)).join(''));
    for (const row of rows) {
      if (!result.firstRecordedAt.has(row.channelId))
        result.firstRecordedAt.set(row.channelId, row.recordedAt);
    }
    result.rowCount += rows.length;
    await options.afterBatch?.();
  }
  if (decorator) await write(await decorator.trailer(format));
  result.sha256 = hash.digest('hex');
  return result;
}
