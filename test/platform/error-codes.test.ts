import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/platform/http/errors.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

/** The closed code table, a docs page behind every problem type, and a 500 that leaks nothing. */
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

const CONTRACT_STATUSES: Record<string, number> = {
  malformed_request: 400,
  invalid_cursor: 400,
  invalid_idempotency_key: 400,
  authentication_required: 401,
  invalid_api_key: 401,
  invalid_identity_token: 401,
  insufficient_scope: 403,
  scope_not_allowed: 403,
  origin_not_allowed: 403,
  app_not_allowed: 403,
  not_found: 404,
  handoff_not_found: 404,
  method_not_allowed: 405,
  origin_duplicate: 409,
  app_duplicate: 409,
  purpose_duplicate: 409,
  invalid_state: 409,
  idempotency_key_in_use: 409,
  export_not_ready: 409,
  delivery_not_failed: 409,
  evidence_not_sealed: 409,
  export_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_scopes: 422,
  invalid_origin: 422,
  invalid_destination: 422,
  unknown_purpose: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  clock_skew: 503,
};

describe('error codes', () => {
  it('the code table is exactly the documented one, with its statuses', () => {
    const table = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
    expect(table).toEqual(CONTRACT_STATUSES);
  });

  it('every code’s type URL resolves to an HTML page naming its status', async () => {
    for (const [code, status] of Object.entries(CONTRACT_STATUSES)) {
      const page = await t.http.get(`/docs/errors/${code}`);
      expect(page.status, code).toBe(200);
      expect(page.headers.get('content-type'), code).toMatch(/text\/html/);
      expect(page.text, code).toContain(String(status));
      expect(page.text, code).toContain(code);
    }
  });

  it('an unexpected failure is a 500 internal_error that leaks no message, stack, SQL or secret', async () => {
    const { audit } = t.app.services;
    const original = audit.list;
    const leak = `select secret_hash from api_keys where secret = '${tenant.testKey}'`;
    audit.list = async () => {
      throw new Error(leak);
    };
    try {
      const res = await t.http.get('/v1/audit-logs', {
        key: tenant.testKey,
        headers: { 'x-request-id': 'boom-1' },
      });
      const problem = expectProblemShape(res, 500, 'internal_error');
      expect(problem.requestId).toBe('boom-1');
      expect(res.text).not.toContain(tenant.testKey);
      expect(res.text).not.toMatch(/select|secret_hash|api_keys|\.ts:\d+|stack/i);
    } finally {
      audit.list = original;
    }
    expect((await t.http.get('/v1/audit-logs', { key: tenant.testKey })).status).toBe(200);
  });
});
