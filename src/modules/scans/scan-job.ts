import type { Clock } from '../../platform/clock.ts';
import type { Store, Tx } from '../../platform/db/store.ts';
import type { JobContext } from '../../platform/jobs/job-runner.ts';
import type { JobRow } from '../../platform/jobs/jobs.repo.ts';
import { isNecessaryCategory } from '../../shared/scans-matching.ts';
import type { ChannelRow, ChannelsService } from '../channels/channels.service.ts';
import { REGIMES, type Regime } from '../regions/regions.schemas.ts';
import { resolveRegime } from '../regions/regions.service.ts';
import { carriedConfig } from '../sites/sites.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { type PageScan, runBrowserScan, ScanFailure } from './browser/index.ts';
import { classifyCookie, classifyHost } from './cookie-database.ts';
import { buildFindings, type FindingRules, summarize } from './findings.ts';
import { type AddressPolicy, addressAllowed } from './scan-targets.ts';
import { scanWarnings } from './scan-warnings.ts';
import { scansRepo } from './scans.repo.ts';
import type { ScanRow } from './scans.tables.ts';

/** The job kind that runs one scan; its payload is `{organizationId, scanId}`. */
export const SCAN_JOB = 'scans.run';
/** A worker that dies mid-scan gives the scan one more try; a scan that failed on its own does not retry. */
export const SCAN_MAX_ATTEMPTS = 2;
/** Lease of a running scan, renewed every SCAN_HEARTBEAT_MS while the browser works. */
export const SCAN_LEASE_MS = 2 * 60_000;
const SCAN_HEARTBEAT_MS = 30_000;

export interface ScanJobPayload {
  organizationId: string;
  scanId: string;
}

export interface ScanJobDeps {
  store: Store;
  clock: Clock;
  channels: Pick<ChannelsService, 'findChannel' | 'currentNotice' | 'technologies'>;
  events: Pick<EventsService, 'emit'>;
  scanner: {
    chromiumPath: string;
    allowPrivate: boolean;
    pageTimeoutMs: number;
    scanTimeoutMs: number;
    /** SCAN_MEMORY_LIMIT_MB: the browser's memory, all its processes together. */
    memoryLimitMb?: number;
    settleMs?: number;
    lookup?: AddressPolicy['lookup'];
  };
  /** The API representation, for the scan.completed payload. */
  present: (row: ScanRow) => Record<string, unknown>;
}

/** The regime a config answer of the service carries (the banner's own, for the scanner's browser). */
function regimeOf(body: string): Regime | null {
  try {
    const regime = (JSON.parse(body) as { data?: { regime?: unknown } }).data?.regime;
    return REGIMES.includes(regime as Regime) ? (regime as Regime) : null;
  } catch {
    return null;
  }
}

export function createScanJob(deps: ScanJobDeps) {
  const { store, clock } = deps;

  async function finish(
    row: ScanRow,
    status: 'succeeded' | 'failed',
    changes: Partial<ScanRow>,
    outer: Tx | null = null,
  ) {
    return store.scope(outer).write(async (tx) => {
      const done = await scansRepo.transition(tx, row, ['queued', 'running'], {
        status,
        completedAt: clock.now(),
        ...changes,
      });
      if (done) {
        // The findings stay behind GET …/scans/:scanId: a webhook carries the status and summary.
        const { findings: _findings, ...data } = deps.present(done);
        await deps.events.emit(tx, {
          type: 'scan.completed',
          organizationId: done.organizationId,
          environment: done.environment,
          data,
        });
      }
      return done;
    });
  }

  /**
   * What the scan judges against: the channel's technologies and required purposes, read when it
   * starts, with the configVersion it records (the version its banner serves while it browses).
   */
  async function rulesOf(channel: ChannelRow) {
    const technologies = await deps.channels.technologies.ofChannel(channel);
    const notice = await deps.channels.currentNotice(channel);
    const required = new Set((notice?.config.purposes ?? []).filter((p) => p.required).map((p) => p.key));
    return { technologies, required };
  }

  /** Drives the browser through the channel's pages, keeping the lease while it works. */
  async function browse(row: ScanRow, channel: ChannelRow, context: JobContext) {
    const ownPath = `/v1/public/sites/${channel.siteKey}/`;
    const ownHosts = new Set<string>();
    const regimes: Regime[] = [];
    const heartbeat = setInterval(() => context.heartbeat().catch(() => {}), SCAN_HEARTBEAT_MS);
    try {
      const pages: PageScan[] = await runBrowserScan({
        urls: row.urls,
        chromiumPath: deps.scanner.chromiumPath,
        allowAddress: addressAllowed({
          environment: row.environment,
          allowPrivate: deps.scanner.allowPrivate,
        }),
        pageTimeoutMs: deps.scanner.pageTimeoutMs,
        scanTimeoutMs: deps.scanner.scanTimeoutMs,
        memoryLimitMb: deps.scanner.memoryLimitMb,
        settleMs: deps.scanner.settleMs,
        lookup: deps.scanner.lookup,
        signal: context.signal,
        // The banner's decision and impression posts are dropped: a scan records no evidence and
        // counts no impression. Every request to the channel's site endpoints marks the service's host.
        blockRequest: (url) => {
          if (!url.pathname.startsWith(ownPath)) return false;
          ownHosts.add(url.host);
          return url.pathname.endsWith('/preferences') || url.pathname.endsWith('/impressions');
        },
        // The banner's config, whose regime decides what a violation is: sdk.js carries it in
        // front of the SDK; a page with a declared region (test channels) fetches `…/config`.
        readResponses: {
          match: (url) => url.pathname === `${ownPath}config` || url.pathname === `${ownPath}sdk.js`,
          read: (url, body) => {
            const config = url.pathname.endsWith('/sdk.js') ? carriedConfig(body) : body;
            const regime = config === null ? null : regimeOf(config);
            if (regime) regimes.push(regime);
          },
        },
      });
      return { pages, ownHosts, regime: regimes[0] ?? null };
    } finally {
      clearInterval(heartbeat);
    }
  }

  return {
    /**
     * Runs one scan and stores its findings. A ScanFailure (no browser, a page that hangs, a refused
     * address) fails the scan with its reason at once; anything else, or the worker stopping, is
     * thrown so the job runner retries (and onExhausted fails the scan when attempts run out).
     */
    async run(ref: ScanJobPayload, context: JobContext): Promise<ScanRow | undefined> {
      const found = await scansRepo.findForJob(store.db, ref.organizationId, ref.scanId);
      if (!found || (found.status !== 'queued' && found.status !== 'running')) return found;
      const channel = await deps.channels.findChannel(
        found.organizationId,
        found.environment,
        found.channelId,
      );
      if (!channel) return finish(found, 'failed', { failureReason: 'The channel no longer exists.' });
      const row = await store.tx((tx) =>
        scansRepo.transition(tx, found, ['queued', 'running'], {
          status: 'running',
          startedAt: clock.now(),
          configVersion: channel.configVersion,
        }),
      );
      if (!row) return found;
      const { technologies, required } = await rulesOf(channel);

      let browsed: Awaited<ReturnType<typeof browse>>;
      try {
        browsed = await browse(row, channel, context);
      } catch (error) {
        if (error instanceof ScanFailure) return finish(row, 'failed', { failureReason: error.message });
        throw error;
      }
      // Still ours? A worker that stalled past its lease must not publish over its successor's scan.
      await context.heartbeat();
      // The banner's own answer when the pages loaded it; else what the rules give a visitor of unknown region.
      const regime = browsed.regime ?? resolveRegime(channel.regionRules, null);
      const rules: FindingRules = {
        technologies,
        requiredPurposes: required,
        regime,
        classifyName: classifyCookie,
        classifyHost,
        isNecessaryCategory,
        ownNames: (name) => /^cs_(consent|pending|notice|receipt)_/.test(name),
        ownHosts: browsed.ownHosts,
      };
      const findings = buildFindings(browsed.pages, rules);
      return finish(row, 'succeeded', {
        regime,
        findings,
        warnings: scanWarnings(browsed.pages, browsed.regime !== null, regime),
        summary: summarize(findings),
        failureReason: null,
      });
    },

    /** Attempts spent (errors, or workers that died holding it): the scan fails with a reason to act on. */
    async onExhausted(tx: Tx, job: JobRow): Promise<void> {
      const { organizationId, scanId } = job.payload as unknown as ScanJobPayload;
      const row = await scansRepo.findForJob(tx, organizationId, scanId);
      if (!row) return;
      const failureReason = `The scan could not be completed after ${Math.min(job.attempts, job.maxAttempts)} attempts; run a new scan.`;
      await finish(row, 'failed', { failureReason }, tx);
    },
  };
}

export type ScanJob = ReturnType<typeof createScanJob>;
