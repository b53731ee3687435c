import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Store } from '../../platform/db/store.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { WebhookAttemptOutcome } from '../../platform/metrics/metrics.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createDeliveriesService } from './deliveries.service.ts';
import { createDeliveryWorker } from './delivery-worker.ts';
import { createDestinationsService } from './destinations.service.ts';
import { createSecretBox, resolveSecretKey } from './webhook-secrets.ts';

/**
 * Seals and opens secrets at rest with the service's key (webhook signing secrets, and the identity
 * module's too): webhook-secrets.ts makes it.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** Destinations, deliveries and the delivery worker, sharing one key for secrets at rest. */
export function createWebhooksService(deps: {
  store: Store;
  clock: Clock;
  config: Pick<
    Config,
    'webhookSecretKey' | 'dataDir' | 'webhookAllowPrivateTargets' | 'webhookRetryScheduleSeconds'
  >;
  audit: Pick<AuditService, 'record'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  /** Told how each sent attempt ended (the webhook_attempts metric). */
  onAttempt?: (outcome: WebhookAttemptOutcome) => void;
}) {
  const { store, clock, config, audit, jobs } = deps;
  let warn = (message: string) => process.emitWarning(message);
  let box: Promise<SecretBox> | null = null;
  // Resolved once, on first use; a failure (database down) is not cached.
  const secretBox = () => {
    box ??= resolveSecretKey({ config, store, warn: (m) => warn(m) })
      .then(createSecretBox)
      .catch((error) => {
        box = null;
        throw error;
      });
    return box;
  };
  const allowPrivateTargets = config.webhookAllowPrivateTargets;
  return {
    destinations: createDestinationsService({ clock, audit, jobs, secretBox, allowPrivateTargets }),
    deliveries: createDeliveriesService({ clock, audit, jobs }),
    worker: createDeliveryWorker({
      store,
      clock,
      audit,
      secretBox,
      allowPrivateTargets,
      retryScheduleSeconds: config.webhookRetryScheduleSeconds,
      onAttempt: deps.onAttempt,
    }),
    /**
     * Seals and opens secrets at rest with the webhook secrets' key: identity secrets are kept the
     * same way (docs/guides/signed-in-visitors.md), under the same WEBHOOK_SECRET_KEY rules.
     */
    secretBox,
    /** Resolves the secrets key at start, so a missing WEBHOOK_SECRET_KEY is warned about in the log then. */
    async prepare(log: FastifyBaseLogger): Promise<void> {
      warn = (message) => log.warn(message);
      await secretBox();
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
