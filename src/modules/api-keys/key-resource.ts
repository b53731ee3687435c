/** What a key shows of itself: its status (which depends on the time) and its API representation. */
import type { Clock } from '../../platform/clock.ts';
import { apiDate } from '../../platform/http/dates.ts';
import type { ApiKeyRow } from './api-keys.repo.ts';
import type { ApiKeyStatus } from './api-keys.service.ts';

/** Revoked wins over expired: a revoked key stays revoked whatever its expiry. */
export function keyStatus(clock: Clock, key: ApiKeyRow): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= clock.now().getTime()) return 'expired';
  return 'active';
}

/** The API representation: never the secret or its hash. */
export function keyResource(clock: Clock, key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    scopes: key.scopes,
    status: keyStatus(clock, key),
    prefix: key.prefix,
    createdAt: apiDate(key.createdAt),
    expiresAt: apiDate(key.expiresAt),
    lastUsedAt: apiDate(key.lastUsedAt),
    revokedAt: apiDate(key.revokedAt),
    memberId: key.memberId,
  };
}
