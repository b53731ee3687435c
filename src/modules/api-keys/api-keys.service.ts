import { displayPrefix, generateApiKeySecret, hashApiKeySecret } from '../../platform/auth/api-key-format.ts';
import { PRINCIPAL_CHANGES } from '../../platform/auth/principal-changes.ts';
import type { Environment, Role, Scope } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorPosition } from '../../platform/db/keyset.ts';
import type { DbScope, Store, Tx } from '../../platform/db/store.ts';
import { AppError, notFound, validationFailed } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import type { EventsService } from '../webhooks/events.service.ts';
import { type ApiKeyRow, apiKeysRepo } from './api-keys.repo.ts';
import { createKeyAuthenticator } from './key-authenticator.ts';
import { keyResource, keyStatus } from './key-resource.ts';
import { checkScopes } from './key-scope-rules.ts';

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

export interface IssueKeyInput {
  name: string;
  scopes: string[];
  expiresAt?: Date | null;
}

export interface IssuedKey {
  key: ApiKeyRow;
  secret: string;
}

/** Key owner as far as scope rules go: the member whose role bounds the key. */
export interface KeyHolder {
  organizationId: string;
  memberId: string;
  role: Role;
}

interface ApiKeysDeps {
  store: Store;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  events: Pick<EventsService, 'emit'>;
}

async function insertKey(
  clock: Clock,
  tx: Tx,
  holder: KeyHolder,
  environment: Environment,
  fields: { name: string; scopes: Scope[]; expiresAt: Date | null },
): Promise<IssuedKey> {
  const secret = generateApiKeySecret(environment);
  const key: ApiKeyRow = {
    organizationId: holder.organizationId,
    id: newId('key'),
    environment,
    memberId: holder.memberId,
    name: fields.name,
    scopes: fields.scopes,
    secretHash: hashApiKeySecret(secret),
    prefix: displayPrefix(secret),
    createdAt: clock.now(),
    expiresAt: fields.expiresAt,
    lastUsedAt: null,
    revokedAt: null,
  };
  await apiKeysRepo.insert(tx, key);
  return { key, secret };
}

async function lockedKey(tx: Tx, context: AuditContext, id: string): Promise<ApiKeyRow> {
  const key = await apiKeysRepo.findForUpdate(tx, context.organizationId, context.environment, id);
  if (!key) throw notFound('API key');
  return key;
}

/** The webhook event of a key change, in the change's transaction (never the secret). */
async function emit(
  deps: ApiKeysDeps,
  tx: Tx,
  type: 'api_key.created' | 'api_key.revoked',
  key: ApiKeyRow,
): Promise<void> {
  await deps.events.emit(tx, {
    type,
    organizationId: key.organizationId,
    environment: key.environment,
    data: keyResource(deps.clock, key),
  });
}

export function createApiKeysService(deps: ApiKeysDeps) {
  const { store, clock, audit } = deps;
  // Bound to this service's clock: the authenticator and the routes ask with a key only.
  const statusOf = (key: ApiKeyRow): ApiKeyStatus => keyStatus(clock, key);
  const toResource = (key: ApiKeyRow) => keyResource(clock, key);

  const authenticator = createKeyAuthenticator({ store, clock, statusOf });

  return {
    statusOf,
    toResource,

    /** Issues a key for `holder` in `context.environment`. callerScopes null means the CLI (role rules only). */
    async issue(
      db: DbScope,
      context: AuditContext,
      holder: KeyHolder,
      input: IssueKeyInput,
      callerScopes: readonly Scope[] | null,
    ): Promise<IssuedKey> {
      const scopes = checkScopes(input.scopes, holder.role, callerScopes);
      const expiresAt = input.expiresAt ?? null;
      if (expiresAt && expiresAt.getTime() <= clock.now().getTime()) {
        throw validationFailed([{ path: '/expiresAt', message: 'must be in the future' }]);
      }
      return db.write(async (tx) => {
        const issued = await insertKey(clock, tx, holder, context.environment, {
          name: input.name,
          scopes,
          expiresAt,
        });
        await audit.record(tx, context, {
          action: 'api_key.created',
          target: { type: 'api_key', id: issued.key.id },
        });
        await emit(deps, tx, 'api_key.created', issued.key);
        return issued;
      });
    },

    /** A new key with the same scopes; the old one keeps working for graceSeconds. */
    async rotate(
      db: DbScope,
      context: AuditContext,
      id: string,
      graceSeconds: number,
      caller: { role: Role; scopes: readonly Scope[] },
    ): Promise<IssuedKey> {
      return db.write(async (tx) => {
        const old = await lockedKey(tx, context, id);
        if (statusOf(old) !== 'active') {
          throw new AppError(
            'invalid_state',
            `The key is ${statusOf(old)}; only an active key can be rotated.`,
          );
        }
        // Rotating hands out a secret with the old key's scopes: the caller must be able to issue them.
        checkScopes(old.scopes, caller.role, caller.scopes);
        const holder = { organizationId: old.organizationId, memberId: old.memberId, role: caller.role };
        const issued = await insertKey(clock, tx, holder, old.environment, {
          name: old.name,
          scopes: old.scopes as Scope[],
          expiresAt: old.expiresAt,
        });
        const graceEnd = new Date(clock.now().getTime() + graceSeconds * 1000);
        const oldExpiry = old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd;
        await apiKeysRepo.update(tx, old, { expiresAt: oldExpiry });
        // Replicas caching the old key's principal must see its new expiry.
        await store.notify(tx, PRINCIPAL_CHANGES);
        await audit.record(tx, context, {
          action: 'api_key.rotated',
          target: { type: 'api_key', id: old.id },
        });
        await audit.record(tx, context, {
          action: 'api_key.created',
          target: { type: 'api_key', id: issued.key.id },
        });
        await emit(deps, tx, 'api_key.created', issued.key);
        return issued;
      });
    },

    async revoke(
      db: DbScope,
      context: AuditContext,
      id: string,
      caller: { role: Role; scopes: readonly Scope[] },
    ): Promise<ApiKeyRow> {
      return db.write(async (tx) => {
        const key = await lockedKey(tx, context, id);
        if (key.revokedAt) throw new AppError('invalid_state', 'The key is already revoked.');
        // The rule of rotate: a caller may only act on keys whose scopes it could issue itself, so a
        // narrow key cannot cut off a broader one (say, the owner's audit key).
        checkScopes(key.scopes, caller.role, caller.scopes);
        const revoked = await apiKeysRepo.update(tx, key, { revokedAt: clock.now() });
        // Every replica caching this key's principal drops it when the revocation commits.
        await store.notify(tx, PRINCIPAL_CHANGES);
        await audit.record(tx, context, { action: 'api_key.revoked', target: { type: 'api_key', id } });
        await emit(deps, tx, 'api_key.revoked', revoked);
        return revoked;
      });
    },

    /** Reads of keys are audited: who looked at which keys, and when. */
    async get(db: DbScope, context: AuditContext, id: string): Promise<ApiKeyRow> {
      const key = await apiKeysRepo.find(db.read, context.organizationId, context.environment, id);
      if (!key) throw notFound('API key');
      await db.write((tx) =>
        audit.record(tx, context, { action: 'api_key.read', target: { type: 'api_key', id } }),
      );
      return key;
    },

    async list(
      db: DbScope,
      context: AuditContext,
      limit: number,
      after: CursorPosition | null,
    ): Promise<ApiKeyRow[]> {
      const rows = await apiKeysRepo.list(db.read, context.organizationId, context.environment, limit, after);
      await db.write((tx) => audit.record(tx, context, { action: 'api_key.read' }));
      return rows;
    },

    /** The principal of a bearer secret, or null for a malformed, unknown, revoked or expired key. */
    authenticate: authenticator.authenticate,
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
