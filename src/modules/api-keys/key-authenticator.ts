import { performance } from 'node:perf_hooks';
import { hashApiKeySecret, parseApiKeySecret } from '../../platform/auth/api-key-format.ts';
import type { ApiKeyPrincipal } from '../../platform/auth/principal.ts';
import { PRINCIPAL_CHANGES } from '../../platform/auth/principal-changes.ts';
import type { Scope } from '../../platform/auth/scopes.ts';
import type { Clock } from '../../platform/clock.ts';
import { type ChangeWatch, watchChanges } from '../../platform/db/change-watch.ts';
import type { Store } from '../../platform/db/store.ts';
import { type ApiKeyRow, apiKeysRepo } from './api-keys.repo.ts';

// lastUsedAt is a hint for people cleaning up keys; writing it on every request would double the writes.
const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * A safety net only: entries are dropped on every PRINCIPAL_CHANGES notification, and the cache is
 * bypassed while this process is not listening. The TTL bounds how long a change could go unseen
 * if a notification were lost on a connection that died without telling (until keepalive notices).
 */
const CACHE_TTL_MS = 10_000;
/** Far above the keys one replica serves in 10 s; a bound so random valid-looking keys cannot grow it. */
const CACHE_MAX_ENTRIES = 10_000;

interface CachedKey {
  key: ApiKeyRow;
  principal: ApiKeyPrincipal;
  loadedAtMs: number;
}

/**
 * Bearer secret → principal, with the database row of each active key cached in process, keyed by
 * the secret's SHA-256 (what the database already stores; never the secret itself). Without it,
 * every authenticated request costs one more round trip than its handler's own queries.
 *
 * Freshness: revoking or rotating a key, or changing an organization's limit, calls
 * `store.notify(PRINCIPAL_CHANGES)` in its transaction. This process then drops the cache right
 * after the commit (before the change's response is sent, so the very next request reads the
 * database); other replicas drop theirs when PostgreSQL delivers the NOTIFY, milliseconds after
 * the commit. Expiry needs no notification: it is checked against the clock on every request.
 */
export function createKeyAuthenticator(deps: {
  store: Store;
  clock: Clock;
  statusOf: (key: ApiKeyRow) => 'active' | 'expired' | 'revoked';
}) {
  const { store, clock, statusOf } = deps;
  const cache = new Map<string, CachedKey>();
  // Subscribed on the first authentication: a process that never authenticates opens no listener.
  let changes: ChangeWatch | null = null;

  function remember(hash: string, entry: CachedKey) {
    if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(hash, entry);
  }

  async function load(hash: string, environment: string, watch: ChangeWatch): Promise<CachedKey | null> {
    const startedAt = watch.generation();
    const found = await apiKeysRepo.findBySecretHash(store.db, hash);
    if (!found || found.key.environment !== environment || found.key.revokedAt) return null;
    const { key } = found;
    const principal: ApiKeyPrincipal = Object.freeze({
      type: 'api_key',
      organizationId: key.organizationId,
      environment: key.environment,
      keyId: key.id,
      memberId: key.memberId,
      role: found.role,
      scopes: Object.freeze([...key.scopes]) as Scope[],
      rateLimitPerMinute: found.rateLimitPerMinute,
    });
    const entry = { key, principal, loadedAtMs: performance.now() };
    if (watch.listening() && startedAt === watch.generation()) remember(hash, entry);
    return entry;
  }

  return {
    /** The principal of a bearer secret, or null for a malformed, unknown, revoked or expired key. */
    async authenticate(secret: string): Promise<ApiKeyPrincipal | null> {
      changes ??= watchChanges(store.listen, PRINCIPAL_CHANGES, () => cache.clear());
      const hash = hashApiKeySecret(secret);
      let entry = changes.listening() ? cache.get(hash) : undefined;
      if (entry && performance.now() - entry.loadedAtMs > CACHE_TTL_MS) {
        cache.delete(hash);
        entry = undefined;
      }
      if (!entry) {
        // A cached hash is one of a secret that passed this check already: only misses need it.
        const format = parseApiKeySecret(secret);
        if (!format) return null;
        entry = (await load(hash, format.environment, changes)) ?? undefined;
      }
      if (!entry || statusOf(entry.key) !== 'active') return null;
      const now = clock.now();
      const { key } = entry;
      if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        // Set before the write, so concurrent requests of this key do not all write it too.
        key.lastUsedAt = now;
        await store.tx((tx) => apiKeysRepo.update(tx, key, { lastUsedAt: now }));
      }
      return entry.principal;
    },
  };
}
