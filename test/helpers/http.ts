/** A small fetch wrapper for tests: real HTTP, JSON in and out, headers kept. */
export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as-is (not JSON-encoded) when given. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export type HttpClient = ReturnType<typeof createClient>;

export function createClient(baseUrl: string) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = null;
    if (text && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, text };
  }
  return {
    request,
    get: (path: string, options?: RequestOptions) => request('GET', path, options),
    post: (path: string, options?: RequestOptions) => request('POST', path, options),
    patch: (path: string, options?: RequestOptions) => request('PATCH', path, options),
    delete: (path: string, options?: RequestOptions) => request('DELETE', path, options),
  };
}

/** Asserts the RFC 9457 problem shape (README "API conventions") and returns its body. */
export function expectProblemShape(response: TestResponse, status: number, code: string) {
  const problem = response.body;
  const ok =
    response.status === status &&
    (response.headers.get('content-type') ?? '').startsWith('application/problem+json') &&
    problem?.code === code &&
    problem?.status === status &&
    typeof problem?.title === 'string' &&
    typeof problem?.detail === 'string' &&
    typeof problem?.instance === 'string' &&
    typeof problem?.type === 'string' &&
    problem.type.endsWith(`/errors/${code}`) &&
    problem?.requestId === response.headers.get('x-request-id');
  if (!ok) {
    throw new Error(
      `expected a ${status} ${code} problem, got ${response.status}: ${response.text.slice(0, 500)}`,
    );
  }
  return problem;
}
