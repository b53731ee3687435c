import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import { isUniqueViolation } from '../../platform/db/pg-errors.ts';
import type { DbScope, Store } from '../../platform/db/store.ts';
import { apiDate } from '../../platform/http/dates.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { JobContext } from '../../platform/jobs/job-runner.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import {
  createScanJob,
  SCAN_JOB,
  SCAN_MAX_ATTEMPTS,
  type ScanJobDeps,
  type ScanJobPayload,
} from './scan-job.ts';
import { scanUrls, vetScanUrls } from './scan-targets.ts';
import { ONE_ACTIVE_SCAN, scansRepo } from './scans.repo.ts';
import type { ScanRow } from './scans.tables.ts';

/**
 * Queued or running scans one organization may have at once, over all its channels (each channel
 * has one at most); more is 429 rate_limited. The worker runs one scan of an organization at a
 * time beside other organizations' scans, so a longer queue would only wait.
 */
export const MAX_ACTIVE_SCANS = 3;

/** Tracker scans of a channel's pages: request, follow, read the findings. */
export function createScansService(deps: {
  store: Store;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  channels: Pick<ChannelsService, 'get' | 'activeOrigins'> & ScanJobDeps['channels'];
  jobs: Pick<JobQueue, 'enqueue'>;
  events: Pick<EventsService, 'emit'>;
  scanner: ScanJobDeps['scanner'];
}) {
  const { clock, audit, channels } = deps;

  function toResource(row: ScanRow) {
    return {
      id: row.id,
      channelId: row.channelId,
      status: row.status,
      urls: row.urls,
      configVersion: row.configVersion,
      regime: row.regime as 'opt-in' | 'opt-out' | 'notice-only' | null,
      createdAt: apiDate(row.createdAt) as string,
      startedAt: apiDate(row.startedAt),
      completedAt: apiDate(row.completedAt),
      failureReason: row.failureReason,
      summary: row.summary,
      findings: row.findings ?? [],
      warnings: row.warnings,
    };
  }

  const job = createScanJob({ ...deps, present: toResource });

  const activeScanConflict = (active?: ScanRow) =>
    new AppError(
      'invalid_state',
      `A scan of this channel is already ${active?.status ?? 'queued or running'}${active ? ` (${active.id})` : ''}; wait for it to end.`,
    );

  return {
    toResource,
    run: (payload: ScanJobPayload, context: JobContext) => job.run(payload, context),
    onExhausted: job.onExhausted,

    /**
     * Checks the pages (on the channel's origins, reachable under the address rules), then records
     * the scan and enqueues its job in one transaction. One scan per channel at a time: 409; at
     * most MAX_ACTIVE_SCANS per organization: 429.
     */
    async create(
      db: DbScope,
      context: AuditContext,
      channelId: string,
      input: { url?: string },
    ): Promise<ScanRow> {
      const channel = await channels.get(db, context, channelId);
      if (channel.status !== 'active') {
        throw new AppError('invalid_state', 'The channel is archived; archived channels are not scanned.');
      }
      const urls = scanUrls(await channels.activeOrigins(channel, db.read), input.url);
      await vetScanUrls(urls, {
        environment: channel.environment,
        allowPrivate: deps.scanner.allowPrivate,
        lookup: deps.scanner.lookup,
      });
      const row: ScanRow = {
        organizationId: context.organizationId,
        id: newId('scn'),
        environment: context.environment,
        channelId: channel.id,
        status: 'queued',
        urls,
        configVersion: channel.configVersion,
        requestedBy: context.actor.id,
        createdAt: clock.now(),
        startedAt: null,
        completedAt: null,
        failureReason: null,
        regime: null,
        summary: null,
        findings: null,
        warnings: [],
      };
      try {
        return await db.write(async (tx) => {
          await scansRepo.lockOrganization(tx, row.organizationId);
          const active = await scansRepo.active(tx, row.organizationId, channel.id);
          if (active) throw activeScanConflict(active);
          if ((await scansRepo.countActive(tx, row.organizationId)) >= MAX_ACTIVE_SCANS) {
            throw new AppError(
              'rate_limited',
              `At most ${MAX_ACTIVE_SCANS} scans of an organization may be queued or running at once; wait for one to end.`,
              { headers: { 'Retry-After': '60' } },
            );
          }
          await scansRepo.insert(tx, row);
          const payload: ScanJobPayload = { organizationId: row.organizationId, scanId: row.id };
          await deps.jobs.enqueue(tx, {
            kind: SCAN_JOB,
            payload: { ...payload },
            organizationId: row.organizationId,
            dedupeKey: `scan:${row.id}`,
            maxAttempts: SCAN_MAX_ATTEMPTS,
          });
          await audit.record(tx, context, {
            action: 'scan.created',
            target: { type: 'scan', id: row.id },
          });
          return row;
        });
      } catch (error) {
        // Two requests at once: the partial unique index lets only one through.
        if (isUniqueViolation(error, ONE_ACTIVE_SCAN)) throw activeScanConflict();
        throw error;
      }
    },

    async get(db: DbScope, scope: AuditContext, channelId: string, scanId: string): Promise<ScanRow> {
      const channel = await channels.get(db, scope, channelId);
      const row = await scansRepo.find(db.read, scope, channel.id, scanId);
      if (!row) throw notFound('scan');
      return row;
    },

    async list(
      db: DbScope,
      scope: AuditContext,
      channelId: string,
      limit: number,
      after: CursorPosition | null,
    ) {
      const channel = await channels.get(db, scope, channelId);
      return scansRepo.list(db.read, scope, channel.id, limit, after);
    },
  };
}

export type ScansService = ReturnType<typeof createScansService>;
