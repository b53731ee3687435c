import type { Readable } from 'node:stream';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { Db, DbScope, Store } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { expireDueExports } from './export-cleanup.ts';
import {
  createExportJob,
  EXPORT_JOB,
  EXPORT_MAX_ATTEMPTS,
  type ExportJobPayload,
  type ExportProofs,
} from './export-job.ts';
import { type ExportScope, exportsRepo } from './exports.repo.ts';
import type { ExportFormat, ExportRow } from './exports.tables.ts';
import type { ExportFileStorage } from './file-storage.ts';

export interface CreateExportInput {
  channelId: string | null;
  from: Date | null;
  to: Date | null;
  format: ExportFormat;
  includeProofs: boolean;
}

/** Queued or running exports an organization may have at once, so one cannot fill the worker; more is 429. */
export const MAX_UNFINISHED_EXPORTS = 3;

/** The API representation. A file past its expiry shows as expired even before the cleanup ran. */
function exportResource(clock: Clock, row: ExportRow) {
  const expired =
    row.status === 'succeeded' && row.expiresAt !== null && row.expiresAt.getTime() <= clock.now().getTime();
  return {
    id: row.id,
    status: expired ? ('expired' as const) : row.status,
    format: row.format,
    filters: { channelId: row.channelId, from: apiDate(row.fromAt), to: apiDate(row.toAt) },
    includeProofs: row.includeProofs,
    rowCount: row.rowCount,
    byteSize: row.byteSize,
    sha256: row.sha256,
    createdAt: apiDate(row.createdAt),
    startedAt: apiDate(row.startedAt),
    completedAt: apiDate(row.completedAt),
    expiresAt: apiDate(row.expiresAt),
    failureReason: row.failureReason,
  };
}

async function findExport(db: Db, scope: ExportScope, id: string): Promise<ExportRow> {
  const row = await exportsRepo.find(db, scope, id);
  if (!row) throw notFound('export');
  return row;
}

export function createExportsService(deps: {
  store: Store;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  channels: Pick<ChannelsService, 'get'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  storage: ExportFileStorage;
  events: Pick<EventsService, 'emit'>;
  /** Present once the ledger module offers proofs; until then includeProofs is refused (422). */
  proofs?: ExportProofs;
}) {
  const { store, clock, audit, storage } = deps;
  // Bound to this service's clock: the routes and the job present a row with the row only.
  const toResource = (row: ExportRow) => exportResource(clock, row);
  const job = createExportJob({ ...deps, present: toResource });

  return {
    toResource,
    /** Where the files are (the benchmark and tests reach them here). */
    storage,
    run: job.run,
    onExhausted: job.onExhausted,

    /** Records the request and enqueues its job in one transaction: no export without a job. */
    async create(db: DbScope, context: AuditContext, input: CreateExportInput): Promise<ExportRow> {
      if (input.includeProofs && !deps.proofs) {
        throw validationFailed(
          [{ path: '/includeProofs', message: 'includeProofs is not available yet' }],
          'includeProofs is not available yet.',
        );
      }
      if (input.includeProofs && input.format !== 'jsonl') {
        // A proved file ends with a `{"treeHead": …}` line; a CSV has no place for it.
        throw validationFailed([{ path: '/includeProofs', message: 'needs format jsonl' }]);
      }
      if (input.from && input.to && input.from > input.to) {
        throw validationFailed([{ path: '/from', message: 'must not be later than to' }]);
      }
      // Another organization's or environment's channel is not found, as on every other route.
      if (input.channelId !== null) await deps.channels.get(db, context, input.channelId);
      const row: ExportRow = {
        organizationId: context.organizationId,
        id: newId('exp'),
        environment: context.environment,
        status: 'queued',
        format: input.format,
        channelId: input.channelId,
        fromAt: input.from,
        toAt: input.to,
        includeProofs: input.includeProofs,
        requestedBy: context.actor.id,
        rowCount: null,
        byteSize: null,
        sha256: null,
        fileKey: null,
        createdAt: clock.now(),
        startedAt: null,
        completedAt: null,
        expiresAt: null,
        failureReason: null,
      };
      return db.write(async (tx) => {
        await exportsRepo.lockOrganization(tx, context.organizationId);
        if ((await exportsRepo.countUnfinished(tx, context.organizationId)) >= MAX_UNFINISHED_EXPORTS) {
          throw new AppError(
            'rate_limited',
            `At most ${MAX_UNFINISHED_EXPORTS} exports may be queued or running at once; wait for one to finish.`,
            { headers: { 'Retry-After': '60' } },
          );
        }
        await exportsRepo.insert(tx, row);
        const payload: ExportJobPayload = { organizationId: row.organizationId, exportId: row.id };
        await deps.jobs.enqueue(tx, {
          kind: EXPORT_JOB,
          payload: { ...payload },
          organizationId: row.organizationId,
          dedupeKey: `export:${row.id}`,
          maxAttempts: EXPORT_MAX_ATTEMPTS,
        });
        await audit.record(tx, context, { action: 'export.created', target: { type: 'export', id: row.id } });
        return row;
      });
    },

    get: (db: DbScope, scope: ExportScope, id: string) => findExport(db.read, scope, id),

    list(db: DbScope, scope: ExportScope, limit: number, after: CursorPosition | null): Promise<ExportRow[]> {
      return exportsRepo.list(db.read, scope, limit, after);
    },

    /**
     * The file of a succeeded export, audited as a download (every download is). 409 export_not_ready
     * before success (or after a failure: it will never be ready), 410 export_expired after expiry.
     */
    async openFile(
      db: DbScope,
      context: AuditContext,
      id: string,
      options: { audit: boolean } = { audit: true },
    ): Promise<{ row: ExportRow; size: number; open: () => Readable }> {
      const row = await findExport(db.read, context, id);
      const status = toResource(row).status;
      if (status === 'queued' || status === 'running') {
        throw new AppError('export_not_ready', `The export is ${status}; download it once it has succeeded.`);
      }
      if (status === 'failed') {
        throw new AppError('export_not_ready', 'The export failed and has no file; request a new export.');
      }
      if (status === 'expired')
        throw new AppError('export_expired', 'The export expired; its file was deleted.');
      const stat = row.fileKey ? await storage.stat(row.fileKey) : null;
      if (!stat || !row.fileKey) {
        throw new AppError('export_expired', 'The export file is no longer available; request a new export.');
      }
      if (options.audit) {
        await db.write((tx) =>
          audit.record(tx, context, { action: 'export.downloaded', target: { type: 'export', id } }),
        );
      }
      const key = row.fileKey;
      return { row, size: stat.size, open: () => storage.openReadStream(key) };
    },

    /** The cleanup task (export-cleanup.ts). */
    expireDue: () => expireDueExports({ store, clock, storage, job }),
  };
}

export type ExportsService = ReturnType<typeof createExportsService>;

/**
 * Runs one export end to end, without HTTP or the job runner: the benchmark's entry point (create
 * it with `services.exports.create`, then call this). Returns the export as it ended.
 */
export function runExport(services: { exports: ExportsService }, ref: ExportJobPayload) {
  return services.exports.run(ref);
}
