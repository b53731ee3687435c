import type { FastifyRequest } from 'fastify';
import type { Environment } from '../auth/scopes.ts';
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
   * For a route whose handler commits its own writes together with the key's record, in one
   * statement of its own (the consent write's group commit): instead of running the handler in a
   * transaction, the idempotency layer hands it `request.keyedWrite` (keyed-write.ts), which the
   * service calls with the answer it is about to send and its statement. Without it, the handler
   * runs inside a transaction that also stores the record.
   */
  handlerCommits?: true;
}

/** What a statement storing a key's record found: the key was free (`stored`), or held (`taken`). */
export type KeyRecordOutcome = 'stored' | 'taken';

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

/**
 * What a `handlerCommits` route's handler is handed (`request.keyedWrite`) while it runs with an
 * Idempotency-Key: the way to commit its writes together with the key's record.
 */
export interface KeyedWrite {
  /**
   * Commits the handler's writes with the key's record, the record holding `payload` as the
   * answer with `status` (serialized as the route's response schema serializes it, so a replay
   * sends the same bytes). `write` is the one statement that stores both, given the record.
   * `committed`: both are stored, and the handler sends `payload`. `replayed`: an earlier or a
   * concurrent request holds the key, nothing was written, and the idempotency layer sends that
   * request's answer instead of the handler's.
   */
  commit(
    status: number,
    payload: unknown,
    write: (record: IdempotencyRecord) => Promise<KeyRecordOutcome>,
  ): Promise<'committed' | 'replayed'>;
}
