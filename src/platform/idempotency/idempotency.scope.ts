import type { FastifyRequest } from 'fastify';
import type { Environment } from '../auth/scopes.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import type { IdempotencyRecord } from './idempotency.tables.ts';

export type { IdempotencyRecord };

/** Whose key space an Idempotency-Key lives in (per API key, or per site on public calls). */
export interface IdempotencyOwner {
  organizationId: string;
  /** Stored on the record, which like every tenant-owned row says which environment it belongs to. */
  environment: Environment;
  /** The API key id (`key_…`), or `site:<siteKey>`. */
  scope: string;
  /**
   * A secret only the caller holds, used to seal stored response bodies (see sealed-body.ts):
   * the API key secret. Null stores bodies as they are: public responses hold no secret.
   */
  sealingSecret: string | null;
}

/**
 * Opts a route into idempotency with its own key space. Authenticated POST/PATCH/DELETE routes
 * need nothing (their scope is the API key); a public route declares it, for example the public
 * preferences endpoint, scoped to its site:
 *
 *   app.post('/v1/public/sites/:siteKey/preferences', {
 *     config: {
 *       auth: 'public',
 *       idempotency: {
 *         // Runs after body validation, before the handler; a throw (404 unknown site) is sent as is.
 *         owner: async (request) => {
 *           const site = await sites.resolve(request.params.siteKey);
 *           return siteIdempotencyOwner(site.siteKey, site.organizationId, site.environment);
 *         },
 *       },
 *     },
 *     onRequest: [app.publicRateLimit],
 *     ...
 *   }, handler);
 *
 * `idempotency: false` opts an authenticated mutating route out.
 */
export interface RouteIdempotency {
  owner(request: FastifyRequest): IdempotencyOwner | Promise<IdempotencyOwner>;
  /**
   * For a route whose services stage their writes in a UnitOfWork (platform/db/unit-of-work.ts)
   * instead of writing in a transaction: commits the staged writes together with the key's record,
   * answering `stored`, or `taken` when a concurrent request with the same key committed first
   * (its response is then replayed, and the staged writes are dropped). Without it, the handler
   * runs inside a transaction that also stores the record.
   */
  commitStaged?(unit: UnitOfWork, record: IdempotencyRecord): Promise<StagedCommitOutcome>;
}

export type StagedCommitOutcome = 'stored' | 'taken';

/** The key space of a public site's calls; `environment` is the site's channel's. */
export function siteIdempotencyOwner(
  siteKey: string,
  organizationId: string,
  environment: Environment,
  /** A secret of the request itself when the stored response holds one (see sealed-body.ts). */
  sealingSecret: string | null = null,
): IdempotencyOwner {
  return { organizationId, environment, scope: `site:${siteKey}`, sealingSecret };
}
