/** One field problem of a 422 `validation_failed` (a JSON Pointer into the request). */
export interface FieldError {
  path: string;
  message: string;
}

/** The RFC 9457 problem body every consent-service error carries. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  instance: string;
  requestId: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

/**
 * A problem response, thrown by every client call that did not succeed. `code` is the stable
 * machine-readable one (`not_found`, `rate_limited`, `validation_failed`, …);
 * quote `requestId` to support.
 */
export class ConsentServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly requestId: string | null;
  readonly errors: FieldError[];
  readonly problem: Problem | null;
  /** Seconds to wait, from Retry-After (429 and 503). */
  readonly retryAfter: number | null;

  constructor(status: number, problem: Problem | null, headers: Headers) {
    const code = problem?.code ?? 'unexpected_response';
    const detail = problem?.detail ?? `The service answered ${status} without a problem body.`;
    super(`${code}: ${detail}`);
    this.name = 'ConsentServiceError';
    this.code = code;
    this.status = status;
    this.title = problem?.title ?? 'Unexpected response';
    this.detail = detail;
    this.requestId = problem?.requestId ?? headers.get('x-request-id');
    this.errors = problem?.errors ?? [];
    this.problem = problem;
    const retryAfter = Number(headers.get('retry-after'));
    this.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
  }

  /** Reads a non-2xx response into an error (the body is consumed from a clone). */
  static async from(response: Response): Promise<ConsentServiceError> {
    let problem: Problem | null = null;
    try {
      const body = (await response.clone().json()) as Partial<Problem> | null;
      if (body && typeof body === 'object' && typeof body.code === 'string') problem = body as Problem;
    } catch {
      // Not JSON (a proxy's HTML page, say): the status is all there is.
    }
    return new ConsentServiceError(response.status, problem, response.headers);
  }
}
