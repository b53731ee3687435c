import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

describe('request ids', () => {
  it('echoes a well-formed client X-Request-Id, on success and on errors', async () => {
    const ok = await t.http.get('/v1/api-keys', {
      key: tenant.testKey,
      headers: { 'x-request-id': 'req_abc.123:x-y' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('req_abc.123:x-y');
    const missing = await t.http.get('/v1/nowhere', { headers: { 'x-request-id': 'req_404' } });
    expect(missing.headers.get('x-request-id')).toBe('req_404');
    expect(expectProblemShape(missing, 404, 'not_found').requestId).toBe('req_404');
  });

  it('replaces a malformed or oversized client value with a generated req_ id', async () => {
    for (const sent of ['has space', 'x'.repeat(129), 'quote"s', 'ünïcode']) {
      const res = await t.http.get('/healthz', {
        headers: { 'x-request-id': encodeURIComponent(sent) === sent ? sent : 'bad/slash' },
      });
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{22}$/);
    }
    const unauth = await t.http.get('/v1/api-keys');
    expect(unauth.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('success envelope', () => {
  it('wraps data with meta and a null error, as application/json', async () => {
    const res = await t.http.get('/v1/api-keys', { key: tenant.testKey });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'meta']);
    expect(res.body.error).toBeNull();
    expect(res.body.meta).toEqual({ nextCursor: null });
  });

  it('formats dates as RFC 3339 UTC with whole seconds', async () => {
    const res = await t.http.get('/v1/api-keys', { key: tenant.testKey });
    for (const key of res.body.data) {
      expect(key.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
  });
});

describe('problems', () => {
  it('unknown route is a 404 problem with the docs type URL', async () => {
    const res = await t.http.get('/v1/does-not-exist');
    const problem = expectProblemShape(res, 404, 'not_found');
    expect(problem.type).toBe(`${t.config.docsUrl}/errors/not_found`);
    expect(problem.instance).toBe('/v1/does-not-exist');
  });

  it('wrong method on a known path is 405 with Allow', async () => {
    const res = await t.http.request('PUT', '/v1/api-keys', { key: tenant.testKey });
    expectProblemShape(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('malformed JSON is 400 malformed_request', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblemShape(res, 400, 'malformed_request');
  });

  it('an empty JSON body is 400 malformed_request', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expectProblemShape(res, 400, 'malformed_request');
  });

  it('a body over 1 MiB is 413 payload_too_large', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), scopes: [] }),
      headers: { 'content-type': 'application/json' },
    });
    expectProblemShape(res, 413, 'payload_too_large');
  });

  it('a non-JSON media type is 415 unsupported_media_type', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblemShape(res, 415, 'unsupported_media_type');
  });

  it('validation errors are 422 with errors[] of JSON pointers', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      body: { scopes: ['channels:read'] },
    });
    const problem = expectProblemShape(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([{ path: '/name', message: 'is required' }]);
  });

  it('unknown body members are rejected, not ignored', async () => {
    const res = await t.http.post('/v1/api-keys', {
      key: tenant.testKey,
      body: { name: 'x', scopes: ['channels:read'], memberId: 'mem_other' },
    });
    expect(expectProblemShape(res, 422, 'validation_failed').errors[0].path).toBe('/memberId');
  });

  it('authentication comes before validation: a bad body without a key is 401', async () => {
    const res = await t.http.post('/v1/api-keys', {
      rawBody: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expectProblemShape(res, 401, 'authentication_required');
  });

  it('scope comes before validation: a bad body with a key lacking the scope is 403', async () => {
    const reader = await tenant.key(['api_keys:read']);
    const res = await t.http.post('/v1/api-keys', { key: reader.secret, body: { nonsense: true } });
    expectProblemShape(res, 403, 'insufficient_scope');
  });
});

describe('pagination', () => {
  it('limit defaults to 20 and must be 1-100', async () => {
    for (const limit of ['0', '101', '-1', 'abc', '1.5']) {
      const res = await t.http.get(`/v1/api-keys?limit=${limit}`, { key: tenant.testKey });
      expectProblemShape(res, 422, 'validation_failed');
    }
    const ok = await t.http.get('/v1/api-keys?limit=100', { key: tenant.testKey });
    expect(ok.status).toBe(200);
    // 22 keys of a fresh tenant's test environment: pages of 20 without a limit, up to 100 with one.
    const own = await t.tenant();
    for (let i = 0; i < 21; i++) {
      const res = await t.http.post('/v1/api-keys', {
        key: own.testKey,
        body: { name: `page-${i}`, scopes: ['channels:read'] },
      });
      expect(res.status).toBe(201);
    }
    const byDefault = await t.http.get('/v1/api-keys', { key: own.testKey });
    expect(byDefault.body.data).toHaveLength(20);
    expect(byDefault.body.meta.nextCursor).toEqual(expect.any(String));
    const all = await t.http.get('/v1/api-keys?limit=100', { key: own.testKey });
    expect(all.body.data).toHaveLength(22);
    expect(all.body.meta.nextCursor).toBeNull();
  });

  it('walks every page newest first without repeats, and rejects foreign cursors', async () => {
    const own = await t.tenant();
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1000);
      const res = await t.http.post('/v1/api-keys', {
        key: own.testKey,
        body: { name: `k${i}`, scopes: ['channels:read'] },
      });
      expect(res.status).toBe(201);
    }
    const seen: string[] = [];
    const dates: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t.http.get(
        `/v1/api-keys?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        {
          key: own.testKey,
        },
      );
      expect(res.status).toBe(200);
      for (const k of res.body.data) {
        seen.push(k.id);
        dates.push(k.createdAt);
      }
      cursor = res.body.meta.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.length).toBe(5);
    expect(new Set(seen).size).toBe(5);
    expect([...dates].sort().reverse()).toEqual(dates);

    const first = await t.http.get('/v1/api-keys?limit=1', { key: own.testKey });
    const issued = first.body.meta.nextCursor as string;
    // Tampered, made up, or from another list/filter set.
    const tampered = `${issued.slice(0, -2)}${issued.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [tampered, 'abc', 'eyJ9.x', `${issued}.extra`]) {
      const res = await t.http.get(`/v1/api-keys?cursor=${encodeURIComponent(bad)}`, { key: own.testKey });
      expectProblemShape(res, 400, 'invalid_cursor');
    }
    const otherList = await t.http.get(`/v1/audit-logs?cursor=${encodeURIComponent(issued)}`, {
      key: own.testKey,
    });
    expectProblemShape(otherList, 400, 'invalid_cursor');
  });

  it('a cursor is bound to its filters', async () => {
    const own = await t.tenant();
    for (let i = 0; i < 3; i++) await t.http.get('/v1/api-keys', { key: own.testKey });
    const page1 = await t.http.get('/v1/audit-logs?limit=1&action=api_key.read', { key: own.testKey });
    const cursor = page1.body.meta.nextCursor;
    expect(cursor).toBeTruthy();
    const same = await t.http.get(
      `/v1/audit-logs?limit=1&action=api_key.read&cursor=${encodeURIComponent(cursor)}`,
      {
        key: own.testKey,
      },
    );
    expect(same.status).toBe(200);
    const other = await t.http.get(
      `/v1/audit-logs?limit=1&action=api_key.created&cursor=${encodeURIComponent(cursor)}`,
      {
        key: own.testKey,
      },
    );
    expectProblemShape(other, 400, 'invalid_cursor');
  });
});

describe('health, OpenAPI and docs', () => {
  it('serves /healthz and /readyz without auth', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    const ready = await t.http.get('/readyz');
    expect(ready.status).toBe(200);
    // The primary's state and the replica's (none here: no DATABASE_READ_URL).
    expect(ready.body).toEqual({ status: 'ok', store: t.store.kind, primary: 'ok', replica: 'none' });
  });

  it('publishes an OpenAPI 3.1 document generated from the routes', async () => {
    const res = await t.http.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/v1/api-keys', '/v1/api-keys/{id}/rotate', '/v1/audit-logs']),
    );
    expect(res.body.paths['/v1/api-keys'].post.requestBody).toBeTruthy();
    // The server is relative: the reference's "Try it out" calls the address the reader loaded it
    // from (127.0.0.1 or localhost), never another origin.
    expect(res.body.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    // Its description names every area of the API.
    for (const area of [
      'tracker scans',
      'consent analytics',
      'consent state',
      'visitor receipts',
      'webhooks',
    ]) {
      expect(res.body.info.description).toContain(area);
    }
  });

  it('has a human docs page and one HTML page per error code', async () => {
    const docs = await fetch(`${t.baseUrl}/docs/`, { redirect: 'manual' });
    expect([200, 302]).toContain(docs.status);
    const page = await t.http.get('/docs/errors/origin_duplicate');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('409');
    expectProblemShape(await t.http.get('/docs/errors/not_a_code'), 404, 'not_found');
  });
});

describe('requests the HTTP parser rejects', () => {
  /** Sends raw bytes and returns the raw response: fetch cannot send a control character in a header. */
  const rawRequest = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const url = new URL(t.baseUrl);
      const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
      let response = '';
      socket.on('data', (chunk) => {
        response += chunk;
      });
      socket.on('end', () => resolve(response));
      socket.on('error', reject);
    });

  it('a control character in a header value is a 400 malformed_request problem with a request id', async () => {
    const response = await rawRequest(
      'GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0001b\r\n\r\n',
    );
    const [head, body] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/problem\+json/i);
    expect(head).toMatch(/x-request-id: req_[0-9A-Za-z]{22}/i);
    const problem = JSON.parse(body);
    expect(problem).toMatchObject({ status: 400, code: 'malformed_request' });
    expect(problem.type).toBe(`${t.config.docsUrl}/errors/malformed_request`);
    // The server keeps serving.
    expect((await t.http.get('/healthz')).status).toBe(200);
  });
});
