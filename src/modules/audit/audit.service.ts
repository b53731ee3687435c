import { createHash } from 'node:crypto';
import type { Environment } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { DbScope, Tx } from '../../platform/db/store.ts';
import { newTimeOrderedId } from '../../platform/ids.ts';
import { type AuditFilters, type AuditRow, auditRepo } from './audit.repo.ts';
import { type AuditNameLookups, type NamedAuditRow, withNames } from './audit-names.ts';

export type ActorType = 'api_key' | 'member' | 'system';

/**
 * Who did something, where: built from the request (or the CLI) and passed to services. Which
 * transaction the work runs in is not part of it: services take that separately (a `DbScope`).
 */
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

const DENIED_WINDOW_MS = 60_000;

/** 22 base62 characters (like every generated id) from a digest of `text`. */
function digestId(text: string): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let n = BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 32)}`);
  let out = '';
  for (let i = 0; i < 22; i++) {
    out += alphabet[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}

export function createAuditService({
  clock,
  names = { name: {}, email: {} },
}: {
  clock: Clock;
  names?: AuditNameLookups;
}) {
  const service = {
    /** Writes one entry inside the caller's transaction, so the entry and the change commit together. */
    record(tx: Tx, context: AuditContext, entry: AuditEntry): Promise<void> {
      const now = clock.now();
      return auditRepo.insert(tx, {
        organizationId: context.organizationId,
        environment: context.environment,
        // Ordered by the time: entries of one millisecond list newest first as they were made.
        id: newTimeOrderedId('aud', now),
        action: entry.action,
        actorType: context.actor.type,
        actorId: context.actor.id,
        targetType: entry.target?.type ?? null,
        targetId: entry.target?.id ?? null,
        requestId: context.requestId,
        ipPrefix: context.ipPrefix,
        occurredAt: now,
      });
    },

    /**
     * A refused request (auth.denied): one entry per actor, target (the route) and minute, whose
     * `count` grows with each further refusal that minute. The entry's id is derived from those, so
     * replicas writing at once meet on the primary key instead of adding rows; the entry keeps the
     * request id and address of the first refusal.
     */
    recordDenied(tx: Tx, context: AuditContext, target: { type: string; id: string }): Promise<void> {
      const now = clock.now();
      const minute = Math.floor(now.getTime() / DENIED_WINDOW_MS);
      const { organizationId, environment, actor } = context;
      const id = `aud_${digestId(
        [organizationId, environment, actor.type, actor.id ?? '', target.type, target.id, minute].join(
          '\u0000',
        ),
      )}`;
      return auditRepo.insertOrCount(tx, {
        organizationId,
        environment,
        id,
        action: 'auth.denied',
        actorType: actor.type,
        actorId: actor.id,
        targetType: target.type,
        targetId: target.id,
        requestId: context.requestId,
        ipPrefix: context.ipPrefix,
        occurredAt: now,
        count: 1,
      });
    },

    list(
      db: DbScope,
      scope: { organizationId: string; environment: Environment },
      filters: AuditFilters,
      limit: number,
      after: CursorPosition | null,
    ): Promise<AuditRow[]> {
      return auditRepo.list(db.read, scope, filters, limit, after);
    },

    /** A page of entries as `list` gives it, each with its actor's and target's names (audit-names.ts). */
    async listNamed(
      db: DbScope,
      scope: { organizationId: string; environment: Environment },
      filters: AuditFilters,
      limit: number,
      after: CursorPosition | null,
    ): Promise<NamedAuditRow[]> {
      const rows = await service.list(db, scope, filters, limit, after);
      return withNames(db.read, scope.organizationId, rows, names);
    },
  };
  return service;
}

export type AuditService = ReturnType<typeof createAuditService>;
