import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

/**
 * Requests a schema-driven fuzzer sent that got a true code with a misleading detail: each problem
 * must say what is wrong with the request, so that its reader can fix it.
 */

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('the QUERY method (RFC 10008), which no route takes', () => {
  it('without Content-Type: 405 with Allow on a path of other methods, 404 elsewhere, never a JSON-parse detail', async () => {
    const listing = await t.http.request('QUERY', '/v1/channels', { key: tenant.testKey });
    const problem = expectProblemShape(listing, 405, 'method_not_allowed');
    expect(problem.detail).toBe('QUERY is not allowed here; use GET, POST.');
    expect(listing.headers.get('allow')).toBe('GET, POST, HEAD');
    const nowhere = await t.http.request('QUERY', '/v1/nowhere', { key: tenant.testKey });
    expect(expectProblemShape(nowhere, 404, 'not_found').detail).toBe('No route QUERY /v1/nowhere.');
  });

  it('with a JSON body: the same answers', async () => {
    const listing = await t.http.request('QUERY', '/v1/evidence', { key: tenant.testKey, body: {} });
    expectProblemShape(listing, 405, 'method_not_allowed');
    expect(listing.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('integers in the query', () => {
  it('past 2^53 a limit is out of range, as 101 is, not "not a decimal integer"', async () => {
    for (const limit of ['101', '9007199254740993', '99999999999999999999', '1'.repeat(400)]) {
      const res = await t.http.get(`/v1/api-keys?limit=${limit}`, { key: tenant.testKey });
      expect(expectProblemShape(res, 422, 'validation_failed').errors, limit).toEqual([
        { path: 'query:/limit', message: 'must be <= 100' },
      ]);
    }
    for (const limit of ['0', '-9007199254740993']) {
      const res = await t.http.get(`/v1/api-keys?limit=${limit}`, { key: tenant.testKey });
      expect(expectProblemShape(res, 422, 'validation_failed').errors, limit).toEqual([
        { path: 'query:/limit', message: 'must be >= 1' },
      ]);
    }
    for (const limit of ['0x10', '1e1', '+10', '1.5', '']) {
      const res = await t.http.get(`/v1/api-keys?limit=${encodeURIComponent(limit)}`, {
        key: tenant.testKey,
      });
      expect(expectProblemShape(res, 422, 'validation_failed').errors, limit).toEqual([
        { path: 'query:/limit', message: 'must be a decimal integer' },
      ]);
    }
  });

  it('an integer without an upper bound, past 2^53, is refused as beyond the integers a client can send exactly', async () => {
    const res = await t.http.get('/v1/evidence/consistency?first=1&second=90071992547409930', {
      key: tenant.testKey,
    });
    expect(expectProblemShape(res, 422, 'validation_failed').errors).toEqual([
      { path: 'query:/second', message: 'must be <= 9007199254740991' },
    ]);
  });
});
