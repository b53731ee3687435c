import createClient from 'openapi-fetch';
import type { components, paths } from '../../clients/typescript/src/schema.d.ts';

/**
 * The console's calls: the /v1 API through the typed client (openapi-fetch over the types generated
 * from the service's OpenAPI document, clients/typescript/src/schema.d.ts), and /console/api, which
 * that document does not describe, through ConsoleConnection's few typed methods. Both go with the
 * session cookie and the CSRF header.
 */
export type Schemas = components['schemas'];

/** The query parameters of `GET path`, as the API declares them. */
export type GetQuery<P extends keyof paths> = NonNullable<
  paths[P]['get'] extends { parameters: { query?: infer Q } } ? Q : never
>;

/** The JSON body of `method path`, as the API declares it. */
export type RequestBody<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The signed-in member's session, as /console/api answers it. */
export interface Session {
  member: { id: string; email: string; role: string };
  organization: { id: string; name: string };
  environment: 'test' | 'live';
  scopes: string[];
  csrfToken: string;
  expiresAt: string;
}

/** An API problem (RFC 9457): `detail` is what people read. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

const unreachable = () =>
  new ApiError(0, 'network', 'The service could not be reached. Check your connection and retry.');

/**
 * The /v1 API, typed by path template and method:
 * `api.GET('/v1/channels/{id}/purposes', { params: { path: { id }, query: { limit: 100 } } })`.
 * A problem is thrown as an ApiError, so a call that returns has its answer: read it with `answer`.
 * The session's side of each call (the CSRF header, the 401 that ends it) is added by the page's
 * ConsoleConnection, which joins this client when the console starts.
 */
export const api = createClient<paths>({
  headers: { accept: 'application/json' },
  credentials: 'same-origin',
});

/**
 * The console's connection to the service for one signed-in page: the CSRF token a state change
 * carries, and what to do when an answer says the session is gone. main.ts creates one; it joins
 * the shared /v1 client, so the views' calls through `api` carry its token too.
 */
export class ConsoleConnection {
  private csrfToken = '';

  /** `onSignedOut` runs when a request finds the session gone (expired or signed out elsewhere). */
  constructor(private readonly onSignedOut: () => void) {
    api.use({
      onRequest: ({ request }) => this.prepare(request),
      onResponse: async ({ request, response }) => {
        await this.refuse(response, new URL(request.url).pathname, request.method);
        return undefined;
      },
      onError: () => unreachable(),
    });
  }

  setCsrfToken(token: string) {
    this.csrfToken = token;
  }

  currentSession() {
    return this.consoleCall<{ data: Session }>('GET', '/console/api/session');
  }

  signIn(body: SignIn) {
    return this.consoleCall<{ data: Session }>('POST', '/console/api/sign-in', body);
  }

  switchEnvironment(environment: Session['environment']) {
    return this.consoleCall<{ data: Session }>('POST', '/console/api/environment', { environment });
  }

  signOut() {
    return this.consoleCall<undefined>('POST', '/console/api/sign-out', {});
  }

  /** A state change carries the CSRF token, and on /v1 a fresh Idempotency-Key. */
  private prepare(request: Request): Request {
    if (request.method !== 'GET') {
      request.headers.set('x-csrf-token', this.csrfToken);
      // A fresh key per click: a retried network call cannot create twice (or answer a retried
      // DELETE with a 404 for what the first one deleted).
      if (new URL(request.url).pathname.startsWith('/v1/')) {
        request.headers.set('idempotency-key', crypto.randomUUID());
      }
    }
    return request;
  }

  /** Throws the problem of an answer that is not 2xx; a 401 outside sign-in means the session is gone. */
  private async refuse(response: Response, path: string, method: string): Promise<void> {
    if (response.ok) return;
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : {};
    if (response.status === 401 && !/\/(sign-in|session)$/.test(path)) {
      this.onSignedOut();
      // Said where the reader acted, as an error: what they typed stays on the page to send again.
      throw new ApiError(
        401,
        'session_ended',
        method === 'GET'
          ? 'Your session has ended. Sign in again above, then reload this view.'
          : 'Your session has ended, so this change was not saved. Sign in again above; what you typed is kept here.',
        parsed,
      );
    }
    throw new ApiError(
      response.status,
      parsed.code ?? 'error',
      parsed.detail ?? `The request failed (${response.status}).`,
      parsed,
    );
  }

  /** A call to the console's own routes (/console/api/*), which the OpenAPI document leaves out. */
  private async consoleCall<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const request = this.prepare(
      new Request(path, {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    let response: Response;
    try {
      response = await fetch(request);
    } catch {
      throw unreachable();
    }
    await this.refuse(response, path, method);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : {}) as T;
  }
}

/** What a successful openapi-fetch result holds (the error side never returns: it is thrown). */
type Answered<R> = R extends { data: infer D; error?: never } ? D : never;

/** The answer's body (`{ data, meta }` for a list, `{ data }` for one resource; nothing for a 204). */
export async function answer<R extends { data?: unknown }>(call: Promise<R>): Promise<Answered<R>> {
  return (await call).data as Answered<R>;
}

export interface SignIn {
  email: string;
  password: string;
  /** Only when the email belongs to several organizations. */
  organizationId?: string;
}
