import type { Environment } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { Db, Store } from '../../platform/db/store.ts';
import { newId } from '../../platform/ids.ts';
import { type AuditFilters, type AuditRow, auditRepo } from './audit.repo.ts';

export type ActorType = 'api_key' | 'member' | 'system';

/** Who did something, where: built from the request (or the CLI) and passed to services. */
export interface AuditContext {
  organizationId: string;
  environment: Environment;
  actor: { type: ActorType; id: string | null };
  requestId: string | null;
  ipPrefix: string | null;
}

/** What happened to what. Deliberately no payload: the log never holds bodies, secrets or subject data. */
export interface AuditEntry {
  action: string;
  target?: { type: string; id: string };
}

export function createAuditService({ store, clock }: { store: Store; clock: Clock }) {
  return {
    /** Writes one entry inside the caller's transaction, so the entry and the change commit together. */
    record(tx: Db, context: AuditContext, entry: AuditEntry): Promise<void> {
      return auditRepo.insert(tx, {
        organizationId: context.organizationId,
        environment: context.environment,
        id: newId('aud'),
        action: entry.action,
        actorType: context.actor.type,
        actorId: context.actor.id,
        targetType: entry.target?.type ?? null,
        targetId: entry.target?.id ?? null,
        requestId: context.requestId,
        ipPrefix: context.ipPrefix,
        occurredAt: clock.now(),
      });
    },

    list(
      scope: { organizationId: string; environment: Environment },
      filters: AuditFilters,
      limit: number,
      after: CursorPosition | null,
    ): Promise<AuditRow[]> {
      return auditRepo.list(store.db, scope, filters, limit, after);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
