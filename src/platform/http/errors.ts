/**
 * The closed table of error codes. Every problem the API returns has one of these
 * codes; the status and title come from here, the detail from the place that raised it.
 */
export const ERROR_CODES = {
  malformed_request: { status: 400, title: 'Malformed request' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  invalid_idempotency_key: { status: 400, title: 'Invalid Idempotency-Key' },
  authentication_required: { status: 401, title: 'Authentication required' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  invalid_identity_token: { status: 401, title: 'Invalid identity token' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  scope_not_allowed: { status: 403, title: 'Scope not allowed' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed' },
  app_not_allowed: { status: 403, title: 'App not allowed' },
  not_found: { status: 404, title: 'Not found' },
  handoff_not_found: { status: 404, title: 'Handoff not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  origin_duplicate: { status: 409, title: 'Origin already registered' },
  app_duplicate: { status: 409, title: 'App already registered' },
  purpose_duplicate: { status: 409, title: 'Purpose key already used' },
  invalid_state: { status: 409, title: 'Invalid state' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency-Key in use' },
  export_not_ready: { status: 409, title: 'Export not ready' },
  delivery_not_failed: { status: 409, title: 'Delivery not failed' },
  evidence_not_sealed: { status: 409, title: 'Evidence not sealed' },
  export_expired: { status: 410, title: 'Export expired' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  invalid_scopes: { status: 422, title: 'Invalid scopes' },
  invalid_origin: { status: 422, title: 'Invalid origin' },
  invalid_destination: { status: 422, title: 'Invalid destination' },
  unknown_purpose: { status: 422, title: 'Unknown purpose' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused' },
  rate_limited: { status: 429, title: 'Rate limited' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  clock_skew: { status: 503, title: 'Server clock out of bounds' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  path: string;
  message: string;
  /** The name of the rule the value breaks, where the API names its rules (a TC string's, say). */
  code?: string;
}

/**
 * The one error type feature code throws. `extra` members are added to the problem body
 * (for example `invalidScopes`); `headers` are set on the response. `cause` is the error it was
 * raised for (a unique violation, a database outage), kept as the standard `Error.cause` for logs
 * and for code that inspects the chain; the problem body is built from the code, detail, errors and
 * extra alone, so nothing of the cause reaches a client.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: {
      errors?: FieldError[];
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
      instance?: string;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_CODES[code].status;
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);

export function validationFailed(errors: FieldError[], detail?: string): AppError {
  return new AppError(
    'validation_failed',
    detail ?? errors.map((e) => `${e.path}: ${e.message}`).join('; '),
    {
      errors,
    },
  );
}
