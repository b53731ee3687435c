import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ConsentServiceError } from './errors.ts';
import type { components, paths } from './schema.d.ts';

export { ConsentServiceError, type FieldError, type Problem } from './errors.ts';
export type { components, operations, paths } from './schema.d.ts';
export { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhooks.ts';

export interface ConsentClientOptions {
  /** Where the service runs, e.g. `https://consent.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** `svc_test_…` or `svc_live_…`. */
  apiKey: string;
  /**
   * Retries of a request that got no answer or a 502/503/504, with the same Idempotency-Key (so a
   * retried POST that had in fact succeeded replays its first response). Default 2.
   */
  retries?: number;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
}

const MUTATING = new Set(['POST', 'PATCH', 'DELETE']);
const RETRYABLE_STATUS = new Set([502, 503, 504]);

/** One page of a consent-service list: `meta.nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  meta: { nextCursor: string | null };
}

/**
 * Every item of a list, page after page, following `meta.nextCursor`. `fetchPage` gets the cursor
 * (undefined for the first page) and returns an openapi-fetch result, so the item type is inferred:
 *
 *   for await (const channel of paginate((cursor) =>
 *     consent.api.GET('/v1/channels', { params: { query: { limit: 100, cursor } } }))) { … }
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ data?: Page<T> }>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data: page } = await fetchPage(cursor);
    if (!page) return;
    yield* page.data;
    cursor = page.meta.nextCursor ?? undefined;
  } while (cursor);
}

/** A fetch that sets an Idempotency-Key on mutations (unless given) and retries what may be retried. */
function retryingFetch(base: typeof fetch, retries: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (MUTATING.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    for (let attempt = 0; ; attempt++) {
      // A clone per attempt: a body can be read once.
      const sent = request.clone();
      try {
        const response = await base(sent);
        if (!RETRYABLE_STATUS.has(response.status) || attempt >= retries) return response;
      } catch (error) {
        if (attempt >= retries) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  };
}

/** Adds the API key; turns every non-2xx answer into a thrown ConsentServiceError. */
function serviceMiddleware(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${apiKey}`);
      return request;
    },
    async onResponse({ response }) {
      if (!response.ok) throw await ConsentServiceError.from(response);
      return undefined;
    },
  };
}

export interface ConsentClient {
  /**
   * The typed openapi-fetch client: `api.GET('/v1/channels/{id}', { params: { path: { id } } })`.
   * Calls resolve to `{ data, response }` on success and throw ConsentServiceError otherwise. Pass
   * `headers: { 'Idempotency-Key': … }` to choose the key of a mutation yourself.
   */
  api: Client<paths>;
  /** `paginate` bound to nothing: re-exported here for discoverability. */
  paginate: typeof paginate;
  /**
   * "May I use this person's data now?": the subject's newest decision per purpose on
   * a channel, or null when they never decided there. `subjectId` is the SDK's visitor id (or yours).
   */
  consentState(channelId: string, subjectId: string): Promise<ConsentState | null>;
  /** The same for up to 100 subjects in one call, in input order (state null: no decision). */
  lookupConsentState(
    channelId: string,
    subjectIds: string[],
  ): Promise<Array<{ subjectId: string; state: ConsentState | null }>>;
}

export type ConsentState = components['schemas']['ConsentState'];

export function createConsentClient(options: ConsentClientOptions): ConsentClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retries ?? 2),
  });
  api.use(serviceMiddleware(options.apiKey));
  return {
    api,
    paginate,
    // Through the lookup: "no decision" is a null state there, not a 404 to tell from an unknown channel.
    async consentState(channelId, subjectId) {
      const { data } = await api.POST('/v1/consent-state/lookups', {
        body: { channelId, subjectIds: [subjectId] },
      });
      return data!.data[0].state;
    },
    async lookupConsentState(channelId, subjectIds) {
      const { data } = await api.POST('/v1/consent-state/lookups', { body: { channelId, subjectIds } });
      // In input order; a lookup by subjectIds answers subjectId (accountIds would answer accountId).
      return data!.data.map(({ state }, i) => ({ subjectId: subjectIds[i], state }));
    },
  };
}
