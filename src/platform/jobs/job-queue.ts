import type { Clock } from '../clock.ts';
import type { Tx } from '../db/store.ts';
import { newId } from '../ids.ts';
import { jobsRepo } from './jobs.repo.ts';

export interface EnqueueInput {
  kind: string;
  payload: Record<string, unknown>;
  organizationId?: string | null;
  /** When it may run; default now. */
  runAt?: Date;
  maxAttempts?: number;
  /** At most one queued or running job per key: a second enqueue is a no-op. */
  dedupeKey?: string;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Enqueues jobs in the transaction the caller names: a service passes its own, so the job commits
 * (or not) with the change that asked for it (a transactional outbox: no job runs for a change that
 * did not commit); work outside any transaction opens one (`store.tx`).
 */
export function createJobQueue({ clock }: { clock: Clock }) {
  return {
    async enqueue(tx: Tx, input: EnqueueInput): Promise<{ id: string; enqueued: boolean }> {
      const now = clock.now();
      const id = newId('job');
      const enqueued = await jobsRepo.insert(tx, {
        id,
        kind: input.kind,
        organizationId: input.organizationId ?? null,
        payload: input.payload,
        status: 'queued',
        attempts: 0,
        maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        runAt: input.runAt ?? now,
        lockedBy: null,
        lockedUntil: null,
        lastError: null,
        dedupeKey: input.dedupeKey ?? null,
        createdAt: now,
        completedAt: null,
      });
      return { id, enqueued };
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
