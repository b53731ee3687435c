import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import type { JobRow } from '../../platform/jobs/jobs.repo.ts';
import type { AuditContext } from '../audit/audit.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import { TEST_RETENTION_MS } from '../evidence/evidence.schemas.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { copyJsonlExport } from './evidence-copy.ts';
import { evidenceBatches } from './evidence-reader.ts';
import type { ExportDecorator, WrittenExport } from './export-writer.ts';
import { writeExport } from './export-writer.ts';
import { exportsRepo } from './exports.repo.ts';
import type { ExportRow } from './exports.tables.ts';
import type { ExportFileStorage } from './file-storage.ts';

/** How long an export waits for the replica to have every event committed before it (then reads the primary). */
const REPLICA_WAIT_MS = 30_000;

/** The job kind that writes one export; its payload is `{organizationId, exportId}`. */
export const EXPORT_JOB = 'exports.run';
/** Attempts before the export is marked failed (a worker death counts as one). */
export const EXPORT_MAX_ATTEMPTS = 3;
/** Lease of a running export; renewed after every batch, so only a stalled or dead worker loses it. */
export const EXPORT_LEASE_MS = 2 * 60_000;
/** How often expired files are deleted (a file past expiresAt is refused at once, before that). */
export const EXPORT_TASK_MS = 15 * 60_000;
/** Default life of a file (7 days), shortened to the evidence's retention when that ends sooner. */
export const EXPORT_TTL_MS = 7 * 24 * 3600_000;

export interface ExportJobPayload {
  organizationId: string;
  exportId: string;
}

/** Builds the lines' decoration for `includeProofs` (the ledger module provides it). */
export type ExportProofs = (exportRow: ExportRow) => Promise<ExportDecorator>;

export interface ExportJobDeps {
  store: Store;
  clock: Clock;
  storage: ExportFileStorage;
  channels: Pick<ChannelsService, 'get'>;
  events: Pick<EventsService, 'emit'>;
  proofs?: ExportProofs;
  /** The API representation, for the export.succeeded / export.failed payloads. */
  present: (row: ExportRow) => Record<string, unknown>;
}

export const fileKeyOf = (row: Pick<ExportRow, 'organizationId' | 'id' | 'format'>) =>
  `${row.organizationId}/${row.id}.${row.format}`;

export function createExportJob(deps: ExportJobDeps) {
  const { store, clock, storage } = deps;

  /**
   * When the file must be gone: 7 days after completion, but never after the first event of any
   * channel in it reaches that channel's retention (test evidence: one day), since the file must
   * not outlive the evidence the service itself would have purged.
   */
  async function expiryOf(row: ExportRow, written: WrittenExport, completedAt: Date): Promise<Date> {
    let expires = completedAt.getTime() + EXPORT_TTL_MS;
    const scope = { organizationId: row.organizationId, environment: row.environment } as AuditContext;
    for (const [channelId, first] of written.firstRecordedAt) {
      let retentionMs = TEST_RETENTION_MS;
      if (row.environment === 'live') {
        const channel = await deps.channels.get(store.scope(null), scope, channelId).catch(() => null);
        if (!channel) continue;
        retentionMs = channel.retentionDays * 24 * 3600_000;
      }
      expires = Math.min(expires, first.getTime() + retentionMs);
    }
    return new Date(expires);
  }

  /** Ends the export in the caller's transaction `outer` when given (a job failing for good), else in its own. */
  async function finish(
    row: ExportRow,
    status: 'succeeded' | 'failed',
    changes: Partial<ExportRow>,
    outer: Tx | null = null,
  ) {
    return store.scope(outer).write(async (tx) => {
      const done = await exportsRepo.transition(tx, row, ['queued', 'running'], { status, ...changes });
      if (done) {
        await deps.events.emit(tx, {
          type: status === 'succeeded' ? 'export.succeeded' : 'export.failed',
          organizationId: done.organizationId,
          environment: done.environment,
          data: deps.present(done),
        });
      }
      return done;
    });
  }

  return {
    /**
     * Writes one export end to end and marks it succeeded; returns the export as it ends up.
     * Idempotent: an export no longer queued or running is left alone. A retry after a dead worker
     * starts over into a fresh temporary file. Throws on failure (the job runner retries).
     */
    async run(ref: ExportJobPayload, heartbeat: () => Promise<void> = async () => {}) {
      const found = await exportsRepo.findForJob(store.db, ref.organizationId, ref.exportId);
      if (!found || (found.status !== 'queued' && found.status !== 'running')) return found;
      const row = await store.tx((tx) =>
        exportsRepo.transition(tx, found, ['queued', 'running'], {
          status: 'running',
          startedAt: clock.now(),
        }),
      );
      if (!row) return found;
      if (row.includeProofs && !deps.proofs) throw new Error('includeProofs has no ledger to prove with');
      const decorator = row.includeProofs && deps.proofs ? await deps.proofs(row) : undefined;

      const key = fileKeyOf(row);
      const file = await storage.createWriteStream(key);
      let written: WrittenExport;
      try {
        // The snapshot ends when the export was asked for: later events are not in it.
        const selection = {
          organizationId: row.organizationId,
          environment: row.environment,
          channelId: row.channelId,
          from: row.fromAt,
          to: row.toAt && row.toAt < row.createdAt ? row.toAt : row.createdAt,
        };
        // Plain JSONL on PostgreSQL: lines built and streamed by the database (COPY). Proofs and
        // CSV (and PGlite, which has no COPY TO STDOUT stream) take the batch path.
        // The replica (DATABASE_READ_URL) only if it is a standby of the primary that has every event
        // committed before now; else the primary (a read URL that cannot say how far behind it is never).
        const reader = await store.caughtUpReader(REPLICA_WAIT_MS);
        written =
          row.format === 'jsonl' && !decorator && reader.snapshot
            ? await copyJsonlExport({
                snapshot: reader.snapshot,
                selection,
                sink: file.stream,
                progress: heartbeat,
              })
            : await writeExport({
                format: row.format,
                // Each batch a turn of the organization's heavy reads: an export of a large
                // tenant never holds the store from other tenants' work (platform/db/heavy-reads.ts).
                batches: evidenceBatches(reader.db, selection, {
                  turn: (read) => store.heavyReads.turn(row.organizationId, read),
                }),
                sink: file.stream,
                decorator,
                afterBatch: heartbeat,
              });
        // Still ours? A worker that stalled past its lease must not publish over its successor.
        await heartbeat();
        await file.commit();
      } catch (error) {
        await file.abort();
        throw error;
      }
      const completedAt = clock.now();
      const done = await finish(row, 'succeeded', {
        rowCount: written.rowCount,
        byteSize: written.byteSize,
        sha256: written.sha256,
        fileKey: key,
        completedAt,
        expiresAt: await expiryOf(row, written, completedAt),
        failureReason: null,
      });
      return done ?? (await exportsRepo.findForJob(store.db, ref.organizationId, ref.exportId));
    },

    /**
     * The job's attempts are spent (errors, or workers that died holding it): the export is failed
     * with a reason a client can act on. The internal error stays in the job row and the logs.
     */
    async onExhausted(tx: Tx, job: JobRow): Promise<void> {
      const { organizationId, exportId } = job.payload as unknown as ExportJobPayload;
      const row = await exportsRepo.findForJob(tx, organizationId, exportId);
      if (!row) return;
      const failureReason = `The export could not be completed after ${Math.min(job.attempts, job.maxAttempts)} attempts; request a new export.`;
      await finish(row, 'failed', { completedAt: clock.now(), failureReason }, tx);
      await storage.remove(fileKeyOf(row)).catch(() => {});
    },

    /** An export unfinished for a day lost its job (the cleanup task's safety net): it is failed. */
    failStale(row: ExportRow) {
      return finish(row, 'failed', {
        completedAt: clock.now(),
        failureReason: 'The export did not complete in time; request a new export.',
      });
    },
  };
}

export type ExportJob = ReturnType<typeof createExportJob>;
