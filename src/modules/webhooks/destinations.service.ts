import type { Static } from '@sinclair/typebox';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { DbScope, Tx } from '../../platform/db/store.ts';
import {
  DestinationRefused,
  type Lookup,
  privateTargetHint,
  vetDestination,
} from '../../platform/http/address-guard.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { JobQueue } from '../../platform/jobs/job-queue.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import { scheduleAttempt } from './delivery-jobs.ts';
import { isEventType } from './event-types.ts';
import { generateWebhookSecret, type SecretBox } from './webhook-secrets.ts';
import {
  type DestinationRow,
  type DestinationUpdate,
  deliveriesRepo,
  destinationsRepo,
} from './webhooks.repo.ts';
import type { CreateDestinationBody, UpdateDestinationBody } from './webhooks.schemas.ts';

export type CreateDestinationInput = Static<typeof CreateDestinationBody>;
export type UpdateDestinationInput = Static<typeof UpdateDestinationBody>;

export interface DestinationsDeps {
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  secretBox: () => Promise<SecretBox>;
  allowPrivateTargets: boolean;
  lookup?: Lookup;
}

/** ["*"] or a list of catalogue types, duplicates collapsed; anything else is a 422 at its index. */
function checkEventTypes(requested: string[] | undefined): string[] {
  if (requested === undefined) return ['*'];
  const unknown = requested
    .map((type, index) => ({ type, index }))
    .filter(({ type }) => type !== '*' && !isEventType(type));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map(({ index }) => ({ path: `/eventTypes/${index}`, message: 'is not a known event type' })),
      `Unknown event types: ${unknown.map((u) => u.type).join(', ')}.`,
    );
  }
  if (requested.includes('*') && requested.length > 1) {
    throw validationFailed([{ path: '/eventTypes', message: '"*" (every type) must be the only entry' }]);
  }
  return [...new Set(requested)];
}

/** The URL, checked by the SSRF guard (platform/http/address-guard.ts): 422 invalid_destination with the reason. */
async function checkUrl(deps: DestinationsDeps, context: AuditContext, url: string): Promise<string> {
  try {
    const vetted = await vetDestination(url, {
      environment: context.environment,
      allowPrivate: deps.allowPrivateTargets,
      lookup: deps.lookup,
    });
    return vetted.url.href;
  } catch (error) {
    if (error instanceof DestinationRefused) {
      const hint = error.nonPublic
        ? privateTargetHint(context.environment, 'WEBHOOK_ALLOW_PRIVATE_TARGETS')
        : '';
      throw new AppError(
        'invalid_destination',
        `The destination URL is not allowed: ${error.message}${hint}.`,
      );
    }
    throw error;
  }
}

async function lockedDestination(tx: Tx, context: AuditContext, id: string): Promise<DestinationRow> {
  const row = await destinationsRepo.findForUpdate(tx, context.organizationId, context.environment, id);
  if (!row) throw notFound('webhook destination');
  return row;
}

/** Applies a change to a locked destination and audits it, in one transaction. */
function changeDestination(
  deps: DestinationsDeps,
  db: DbScope,
  context: AuditContext,
  id: string,
  action: string,
  apply: (row: DestinationRow, tx: Tx) => Promise<DestinationUpdate>,
): Promise<DestinationRow> {
  return db.write(async (tx) => {
    const row = await lockedDestination(tx, context, id);
    const changes = await apply(row, tx);
    const updated = await destinationsRepo.update(tx, row, { ...changes, updatedAt: deps.clock.now() });
    await deps.audit.record(tx, context, { action, target: { type: 'webhook_destination', id } });
    return updated;
  });
}

export function createDestinationsService(deps: DestinationsDeps) {
  const { clock, audit, jobs } = deps;

  return {
    /** Creates an enabled destination; the secret is returned here and never again. */
    async create(db: DbScope, context: AuditContext, input: CreateDestinationInput) {
      const eventTypes = checkEventTypes(input.eventTypes);
      const url = await checkUrl(deps, context, input.url);
      const secret = generateWebhookSecret();
      const box = await deps.secretBox();
      const now = clock.now();
      const destination: DestinationRow = {
        organizationId: context.organizationId,
        id: newId('whd'),
        environment: context.environment,
        url,
        description: input.description ?? null,
        eventTypes,
        status: 'enabled',
        disabledReason: null,
        secretCiphertext: box.seal(secret),
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      await db.write(async (tx) => {
        await destinationsRepo.insert(tx, destination);
        await audit.record(tx, context, {
          action: 'webhook_destination.created',
          target: { type: 'webhook_destination', id: destination.id },
        });
      });
      return { destination, secret };
    },

    async get(db: DbScope, context: AuditContext, id: string): Promise<DestinationRow> {
      const row = await destinationsRepo.find(db.read, context.organizationId, context.environment, id);
      if (!row) throw notFound('webhook destination');
      return row;
    },

    list(
      db: DbScope,
      context: AuditContext,
      limit: number,
      after: CursorPosition | null,
    ): Promise<DestinationRow[]> {
      return destinationsRepo.list(db.read, context.organizationId, context.environment, limit, after);
    },

    async update(
      db: DbScope,
      context: AuditContext,
      id: string,
      input: UpdateDestinationInput,
    ): Promise<DestinationRow> {
      const changes: DestinationUpdate = {};
      if (input.eventTypes !== undefined) changes.eventTypes = checkEventTypes(input.eventTypes);
      if (input.description !== undefined) changes.description = input.description;
      // Resolved before the transaction: a slow DNS answer must not hold a row lock.
      if (input.url !== undefined) changes.url = await checkUrl(deps, context, input.url);
      return changeDestination(deps, db, context, id, 'webhook_destination.updated', async () => changes);
    },

    /**
     * A new secret; the old one keeps signing (both signatures sent) for graceSeconds. Only one
     * previous secret is kept: rotating again within a grace ends the older grace at once.
     */
    async rotateSecret(db: DbScope, context: AuditContext, id: string, graceSeconds: number) {
      const secret = generateWebhookSecret();
      const box = await deps.secretBox();
      const destination = await changeDestination(
        deps,
        db,
        context,
        id,
        'webhook_destination.secret_rotated',
        async (row) => ({
          secretCiphertext: box.seal(secret),
          previousSecretCiphertext: graceSeconds > 0 ? row.secretCiphertext : null,
          previousSecretExpiresAt:
            graceSeconds > 0 ? new Date(clock.now().getTime() + graceSeconds * 1000) : null,
        }),
      );
      return { destination, secret };
    },

    disable(db: DbScope, context: AuditContext, id: string): Promise<DestinationRow> {
      return changeDestination(deps, db, context, id, 'webhook_destination.disabled', async (row) => {
        if (row.status === 'disabled')
          throw new AppError('invalid_state', 'The destination is already disabled.');
        return { status: 'disabled', disabledReason: 'manual' };
      });
    },

    /** Enables it again and resumes the deliveries parked while it was disabled. */
    enable(db: DbScope, context: AuditContext, id: string): Promise<DestinationRow> {
      return changeDestination(deps, db, context, id, 'webhook_destination.enabled', async (row, tx) => {
        if (row.status === 'enabled')
          throw new AppError('invalid_state', 'The destination is already enabled.');
        const now = clock.now();
        const resumed = await deliveriesRepo.resumeParked(tx, row.organizationId, row.id, now);
        for (const delivery of resumed) await scheduleAttempt(tx, jobs, delivery, now);
        return { status: 'enabled', disabledReason: null, failingSince: null };
      });
    },
  };
}

export type DestinationsService = ReturnType<typeof createDestinationsService>;
