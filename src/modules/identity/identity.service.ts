import type { Clock } from '../../platform/clock.ts';
import { watchChanges } from '../../platform/db/change-watch.ts';
import type { DbScope, Store } from '../../platform/db/store.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { newId, randomBase62 } from '../../platform/ids.ts';
import type { AuditContext, AuditService } from '../audit/audit.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { EvidenceService } from '../evidence/evidence.service.ts';
import type { SecretBox } from '../webhooks/webhooks.service.ts';
import type { IdentitySecretRow } from './identity.tables.ts';
import { type ChannelRef, identitySecretsRepo } from './identity-secrets.repo.ts';
import { verifyIdentityToken } from './identity-token.ts';

/** Active secrets a channel may hold at once: the one in use and its successor during a rotation. */
export const MAX_ACTIVE_IDENTITY_SECRETS = 2;
/** Notified when a channel's identity secrets change: every replica's key cache drops what it holds. */
export const IDENTITY_SECRET_CHANGES = 'identity_secret_changes';
/** How long cached keys are trusted while change notifications cannot be relied on, and while they can. */
const KEYS_TTL_MS = 5_000;
const KEYS_NOTIFIED_TTL_MS = 60_000;
const MAX_CACHED_CHANNELS = 10_000;

/** `idsec_` + 43 base62 characters (about 256 bits): the HS256 key is the UTF-8 of the whole string. */
export const generateIdentitySecret = () => `idsec_${randomBase62(43)}`;

/** A channel as the public endpoints know it: the token's audience is its siteKey. */
export interface IdentityChannel extends ChannelRef {
  siteKey: string;
}

/**
 * Signed-in visitors (docs/guides/signed-in-visitors.md): a channel's identity secrets, and the
 * identity tokens a site's backend signs with them. A token names an account; its decisions are the
 * account's, under the account's own pseudonym (the evidence module's).
 */
export function createIdentityService(deps: {
  store: Pick<Store, 'db' | 'notify' | 'listen'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  channels: Pick<ChannelsService, 'get'>;
  secretBox: () => Promise<SecretBox>;
  evidence: Pick<EvidenceService, 'consentState'>;
}) {
  const { store, clock, audit, channels } = deps;

  // The keys of each channel's active secrets, opened once: the consent write with a token, and
  // every identify call, would otherwise read and decrypt them per request.
  const keys = new Map<string, { keys: Uint8Array[]; checkedAtMs: number }>();
  const changes = watchChanges(store.listen, IDENTITY_SECRET_CHANGES, () => keys.clear());
  const ttl = () => (changes.listening() ? KEYS_NOTIFIED_TTL_MS : KEYS_TTL_MS);

  async function keysOf(channel: ChannelRef): Promise<Uint8Array[]> {
    const cacheKey = `${channel.organizationId}:${channel.id}`;
    const cached = keys.get(cacheKey);
    if (cached && clock.now().getTime() - cached.checkedAtMs < ttl()) return cached.keys;
    const startedIn = changes.generation();
    const box = await deps.secretBox();
    const rows = await identitySecretsRepo.active(store.db, channel);
    const opened = rows.map((row) => new TextEncoder().encode(box.open(row.secretCiphertext)));
    // A load begun before a change (a revocation) is used once, not cached.
    if (startedIn === changes.generation()) {
      if (keys.size >= MAX_CACHED_CHANNELS) keys.delete(keys.keys().next().value as string);
      keys.set(cacheKey, { keys: opened, checkedAtMs: clock.now().getTime() });
    }
    return opened;
  }

  return {
    /** Creates a secret (at most two active: 409 invalid_state); the secret is returned here only. */
    async create(db: DbScope, context: AuditContext, channelId: string) {
      const channel = await channels.get(db, context, channelId);
      if (channel.status !== 'active') {
        throw new AppError('invalid_state', 'The channel is archived; it takes no identity secrets.');
      }
      const secret = generateIdentitySecret();
      const box = await deps.secretBox();
      const row: IdentitySecretRow = {
        organizationId: channel.organizationId,
        id: newId('isk'),
        environment: channel.environment,
        channelId: channel.id,
        secretCiphertext: box.seal(secret),
        createdAt: clock.now(),
        revokedAt: null,
      };
      await db.write(async (tx) => {
        await identitySecretsRepo.lockChannel(tx, channel);
        const active = await identitySecretsRepo.active(tx, channel);
        if (active.length >= MAX_ACTIVE_IDENTITY_SECRETS) {
          throw new AppError(
            'invalid_state',
            `The channel already has ${MAX_ACTIVE_IDENTITY_SECRETS} active identity secrets, the most it may hold: revoke one (DELETE /v1/channels/${channel.id}/identity-secrets/<secretId>) before creating another.`,
          );
        }
        await identitySecretsRepo.insert(tx, row);
        await audit.record(tx, context, {
          action: 'identity_secret.created',
          target: { type: 'identity_secret', id: row.id },
        });
        await store.notify(tx, IDENTITY_SECRET_CHANGES);
      });
      return { row, secret };
    },

    /** The channel's active secrets, newest first, without their secrets. */
    async list(db: DbScope, context: AuditContext, channelId: string): Promise<IdentitySecretRow[]> {
      const channel = await channels.get(db, context, channelId);
      return identitySecretsRepo.active(db.read, channel);
    },

    /** Revokes an active secret: tokens signed with it are refused from the commit on. */
    async revoke(db: DbScope, context: AuditContext, channelId: string, secretId: string): Promise<void> {
      const channel = await channels.get(db, context, channelId);
      await db.write(async (tx) => {
        await identitySecretsRepo.lockChannel(tx, channel);
        const revoked = await identitySecretsRepo.revoke(tx, channel, secretId, clock.now());
        if (!revoked) throw notFound('identity secret');
        await audit.record(tx, context, {
          action: 'identity_secret.revoked',
          target: { type: 'identity_secret', id: secretId },
        });
        await store.notify(tx, IDENTITY_SECRET_CHANGES);
      });
    },

    /**
     * The account id of a token for this channel (signed with one of its active secrets, for its
     * siteKey, current, at most a day long), or a 401 invalid_identity_token. Never logged or stored.
     */
    async accountOf(channel: IdentityChannel, token: string): Promise<string> {
      return verifyIdentityToken(token, await keysOf(channel), channel.siteKey, clock.now());
    },

    /**
     * The account's current choice on the channel (the newest decision per purpose, with its TC
     * string on a TCF channel: `tcf` set), or null.
     */
    accountChoice(db: DbScope, channel: ChannelRef & { tcf?: unknown }, accountId: string) {
      return deps.evidence.consentState.accountChoice(db, channel, accountId);
    },

    /** Stops listening for changes (the app is closing). */
    close: changes.stop,
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
