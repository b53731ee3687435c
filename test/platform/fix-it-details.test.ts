import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKeySecret } from '../../src/platform/auth/api-key-format.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, type ReadySite, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The problems a developer meets on the first day say how to fix them: a key sent without its
 * scheme, a placeholder copied from an example, an id of the other environment, a filter naming a
 * channel that is not there (docs/errors/).
 */
let t: TestApp;
let tenant: Tenant;
let testSite: ReadySite;
let liveSite: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  testSite = await createReadySite(t, tenant.testKey, { name: 'Test shop' });
  liveSite = await createReadySite(t, tenant.liveKey, { name: 'Live shop' });
});
afterAll(() => t.close());

const HOW = 'Authorization: Bearer <key>';
const ELLIPSIS = '%E2%80%A6';

describe('an Authorization header that is not Bearer <key>', () => {
  it('is a 401 invalid_api_key saying how to send the key, never echoing it', async () => {
    const key = tenant.testKey;
    const cases: Array<[string, RegExp]> = [
      [key, /bare API key/],
      [`Basic ${Buffer.from(`${key}:`).toString('base64')}`, /Basic scheme/],
      [`Token ${key}`, /Token scheme/],
      ['Bearer', /carries no key/],
      [`Bearer ${key} extra`, /more than one value/],
      [`Bearer: ${key}`, /not a Bearer credential|Bearer: scheme/],
    ];
    for (const [authorization, says] of cases) {
      const res = await t.http.get('/v1/channels', { headers: { authorization } });
      const problem = expectProblemShape(res, 401, 'invalid_api_key');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(problem.detail, authorization).toContain(HOW);
      expect(problem.detail, authorization).toMatch(says);
      expect(res.text).not.toContain(key);
      expect(res.text).not.toContain(key.slice(9));
    }
  });

  it('takes the scheme in any case (RFC 6750 and RFC 9110: the scheme is case-insensitive)', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const res = await t.http.get('/v1/channels', {
        headers: { authorization: `${scheme} ${tenant.testKey}` },
      });
      expect(res.status, scheme).toBe(200);
    }
  });

  it('tells a mistyped key from a well-formed one that is not active', async () => {
    const mistyped = expectProblemShape(
      await t.http.get('/v1/channels', { key: tenant.testKey.slice(0, -1) }),
      401,
      'invalid_api_key',
    );
    expect(mistyped.detail).toMatch(/not a well-formed API key.*copied/);
    const unknown = expectProblemShape(
      await t.http.get('/v1/channels', { key: generateApiKeySecret('test') }),
      401,
      'invalid_api_key',
    );
    expect(unknown.detail).toMatch(/unknown, revoked or expired/);
  });
});

describe('a placeholder copied from an example', () => {
  const expectPlaceholder = (res: Awaited<ReturnType<typeof t.http.get>>, where: string) => {
    const problem = expectProblemShape(res, 400, 'malformed_request');
    expect(problem.detail).toContain(`The ${where} holds the placeholder`);
    expect(problem.detail).toContain('replace it with a real id');
    return problem;
  };

  it('percent-encoded or as three dots, in a path: a 400 naming the parameter', async () => {
    const key = tenant.testKey;
    const ch = testSite.channelId;
    expectPlaceholder(await t.http.get(`/v1/channels/ch_${ELLIPSIS}`, { key }), 'path parameter id');
    expectPlaceholder(await t.http.get('/v1/channels/ch_...', { key }), 'path parameter id');
    expectPlaceholder(await t.http.get(`/v1/channels/${ELLIPSIS}`, { key }), 'path parameter id');
    const archive = await t.http.post(`/v1/channels/${ch}/purposes/pur_${ELLIPSIS}/archive`, { key });
    const problem = expectPlaceholder(archive, 'path parameter purposeId');
    expect(problem.detail).toContain('"pur_…"');
    expect(problem.errors).toEqual([{ path: 'path:/purposeId', message: 'is a placeholder' }]);
    // A public route, whose site is resolved before anything else.
    expectPlaceholder(
      await t.http.get(`/v1/public/sites/site_test_${ELLIPSIS}/config`),
      'path parameter siteKey',
    );
  });

  it('in a query: a 400 naming the query parameter, on every list that takes channelId', async () => {
    const key = tenant.testKey;
    for (const path of [
      `/v1/evidence?channelId=ch_${ELLIPSIS}`,
      '/v1/evidence?channelId=ch_...',
      `/v1/consent-state?channelId=ch_${ELLIPSIS}&subjectId=s`,
      `/v1/analytics/consent?channelId=ch_${ELLIPSIS}&from=2026-01-01&to=2026-01-31`,
      `/v1/audit-logs?targetId=ch_${ELLIPSIS}`,
    ]) {
      const name = path.includes('targetId') ? 'targetId' : 'channelId';
      expectPlaceholder(await t.http.get(path, { key }), `query parameter ${name}`);
    }
  });

  it('is told after authentication, and never in free text (a subject id is the integrator’s own)', async () => {
    expectProblemShape(await t.http.get(`/v1/channels/ch_${ELLIPSIS}`), 401, 'authentication_required');
    const res = await t.http.get(`/v1/evidence?subjectId=${encodeURIComponent('Jean…')}`, {
      key: tenant.testKey,
    });
    expect(res.status, res.text).toBe(200);
    // Three dots inside a value are no placeholder either.
    expect((await t.http.get('/v1/channels/ch_a...b', { key: tenant.testKey })).status).toBe(404);
  });

  /** Sends a request line as a copied command would, the ellipsis as raw UTF-8 bytes. */
  function rawRequest(target: string, headers: string): Promise<Record<string, any>> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('error', reject);
      socket.on('close', () => {
        expect(text).toMatch(/^HTTP\/1\.1 400 /);
        resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)));
      });
      socket.write(Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`));
    });
  }

  it('raw (not percent-encoded): a 400 naming the route’s parameter or the query’s', async () => {
    const auth = `Authorization: Bearer ${tenant.testKey}\r\n`;
    const inPath = await rawRequest('/v1/channels/ch_\u2026/purposes', auth);
    expect(inPath.code).toBe('malformed_request');
    expect(inPath.detail).toContain('The path parameter id holds the placeholder "ch_…"');
    const inQuery = await rawRequest('/v1/evidence?limit=5&channelId=ch_\u2026', auth);
    expect(inQuery.detail).toContain('The query parameter channelId holds the placeholder "ch_…"');
    expect(inQuery.instance).toBe('/v1/evidence');
    expect(inQuery.errors).toEqual([{ path: 'query:/channelId', message: 'is a placeholder' }]);
    // Another byte that must be encoded is told as before, with the part that holds it.
    const other = await rawRequest('/v1/evidence?channelId=caf\u00e9', auth);
    expect(other.detail).toContain(
      'Query parameter channelId holds a character that must be percent-encoded',
    );
  });
});

describe('a resource of the other environment', () => {
  const NOTE = 'test keys see only test data and live keys only live data';

  it('is a 404 saying which data the key sees, for a live key on a test channel and the reverse', async () => {
    const liveOnTest = expectProblemShape(
      await t.http.get(`/v1/channels/${testSite.channelId}`, { key: tenant.liveKey }),
      404,
      'not_found',
    );
    expect(liveOnTest.detail).toContain(NOTE);
    expect(liveOnTest.detail).toContain('This is a live key (svc_live_…)');
    const testOnLive = expectProblemShape(
      await t.http.get(`/v1/channels/${liveSite.channelId}/purposes`, { key: tenant.testKey }),
      404,
      'not_found',
    );
    expect(testOnLive.detail).toContain(NOTE);
    expect(testOnLive.detail).toContain('use a live key (svc_live_…)');
  });

  it('says the same whether the id exists elsewhere or nowhere, so it leaks nothing', async () => {
    const other = await t.tenant();
    const theirs = await createReadySite(t, other.testKey, { name: 'Theirs' });
    const detailOf = async (id: string) =>
      expectProblemShape(await t.http.get(`/v1/channels/${id}`, { key: tenant.testKey }), 404, 'not_found')
        .detail;
    const nowhere = await detailOf('ch_0000000000000000000000');
    expect(await detailOf(liveSite.channelId)).toBe(nowhere);
    expect(await detailOf(theirs.channelId)).toBe(nowhere);
    expect(nowhere).toContain(NOTE);
  });
});

describe('a channelId filter naming no channel of the key’s environment', () => {
  it('is a 404 on evidence, consent state, its lookups, analytics and exports', async () => {
    const other = await t.tenant();
    const theirs = await createReadySite(t, other.testKey, { name: 'Theirs' });
    const key = tenant.testKey;
    for (const channelId of ['ch_0000000000000000000000', liveSite.channelId, theirs.channelId]) {
      for (const res of [
        await t.http.get(`/v1/evidence?channelId=${channelId}`, { key }),
        await t.http.get(`/v1/consent-state?channelId=${channelId}&subjectId=s-1`, { key }),
        await t.http.post('/v1/consent-state/lookups', { key, body: { channelId, subjectIds: ['s-1'] } }),
        await t.http.get(`/v1/analytics/consent?channelId=${channelId}&from=2026-01-01&to=2026-01-31`, {
          key,
        }),
        await t.http.post('/v1/exports', { key, body: { channelId } }),
      ]) {
        const problem = expectProblemShape(res, 404, 'not_found');
        expect(problem.detail).toContain('test keys see only test data');
      }
    }
    // The same filters on a channel of this environment answer (empty: nothing recorded yet).
    const own = await t.http.get(`/v1/evidence?channelId=${testSite.channelId}`, { key });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toEqual([]);
  });
});
