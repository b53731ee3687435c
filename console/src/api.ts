/** The console's calls: the /v1 API and /console/api, with the session cookie and the CSRF header. */
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

let csrfToken = '';
let onSignedOut: () => void = () => {};

export function setCsrfToken(token: string) {
  csrfToken = token;
}

/** Called when a request finds the session gone (expired or signed out elsewhere). */
export function whenSignedOut(callback: () => void) {
  onSignedOut = callback;
}

export async function call<T = any>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: T; meta: any }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['x-csrf-token'] = csrfToken;
    // A fresh key per click: a retried network call cannot create twice (or answer a retried
    // DELETE with a 404 for what the first one deleted).
    if (path.startsWith('/v1/')) headers['idempotency-key'] = crypto.randomUUID();
  }
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', 'The service could not be reached. Check your connection and retry.');
  }
  if (response.status === 204) return { data: undefined as T, meta: {} };
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const error = new ApiError(
      response.status,
      parsed.code ?? 'error',
      parsed.detail ?? `The request failed (${response.status}).`,
      parsed,
    );
    if (response.status === 401 && !/\/(sign-in|session)$/.test(path)) onSignedOut();
    throw error;
  }
  return parsed;
}

export const get = <T = any>(path: string) => call<T>('GET', path);
export const post = <T = any>(path: string, body?: unknown) => call<T>('POST', path, body ?? {});

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v);
  const text = search.toString();
  return text ? `?${text}` : '';
}
