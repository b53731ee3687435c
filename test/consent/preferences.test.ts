import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  newSubjectId,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITE_ORIGIN,
  SITES_TEST_ENV,
  WILDCARD_MATCH,
} from '../helpers/sites.ts';

let t: TestApp;
let tenant: Tenant;
let s: ReadySite;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
  s = await createReadySite(t, tenant.testKey);
});
afterAll(() => t.close());

const post = (body: unknown, options: Parameters<typeof postPreferences>[3] = {}) =>
  postPreferences(t, s.siteKey, body, options);

async function evidenceOf(id: string) {
  const res = await t.http.get(`/v1/evidence/${id}`, { key: tenant.testKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('POST …/preferences: recording', () => {
  it('201 with {id, recordedAt, receipt.hash}; the event holds what the request said', async () => {
    const res = await post(preferencesBody(s, { language: 'de-DE', source: 'preference_center' }), {
      headers: { 'user-agent': `Mozilla/5.0 ${'x'.repeat(600)}` },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^evt_[0-9A-Za-z]{22}$/),
        recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        receipt: {
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          url: expect.stringMatching(/\/v1\/public\/receipts\/evt_[0-9A-Za-z]{22}\?token=org_/),
        },
      },
      meta: {},
      error: null,
    });
    const event = await evidenceOf(res.body.data.id);
    expect(event).toMatchObject({
      id: res.body.data.id,
      type: 'consent.recorded',
      channelId: s.channelId,
      environment: 'test',
      decisions: { necessary: 'granted', analytics: 'granted', marketing: 'denied' },
      configVersion: s.configVersion,
      policyVersion: '2024-05',
      source: 'preference_center',
      language: 'de-DE',
      gpc: false,
      origin: SITE_ORIGIN,
      ipPrefix: '127.0.0.0/24',
      recordedAt: res.body.data.recordedAt,
      receipt: { hash: res.body.data.receipt.hash },
    });
    expect(event.userAgent).toHaveLength(512);
  });

  it('defaults: source banner, language null, gpc false; undecided purposes denied, required granted', async () => {
    const res = await post({ subjectId: newSubjectId(), decisions: {}, configVersion: s.configVersion });
    expect(res.status, res.text).toBe(201);
    const event = await evidenceOf(res.body.data.id);
    expect(event).toMatchObject({
      decisions: { necessary: 'granted', analytics: 'denied', marketing: 'denied' },
      source: 'banner',
      language: null,
      gpc: false,
    });
  });

  it('gpc: true records gpcOptOut purposes denied even when sent granted', async () => {
    const res = await post(
      preferencesBody(s, { decisions: { analytics: 'granted', marketing: 'granted' }, gpc: true }),
    );
    expect(res.status).toBe(201);
    const event = await evidenceOf(res.body.data.id);
    expect(event.decisions).toEqual({ necessary: 'granted', analytics: 'granted', marketing: 'denied' });
    expect(event.gpc).toBe(true);
  });

  it('accepts an older configVersion, recorded with that notice', async () => {
    const res = await post(preferencesBody(s, { configVersion: 1, decisions: {} }));
    expect(res.status, res.text).toBe(201);
    const event = await evidenceOf(res.body.data.id);
    expect(event.configVersion).toBe(1);
    expect(event.decisions).toEqual({}); // version 1 had no purposes yet
  });

  it('accepts a configVersion published after this replica cached the site', async () => {
    const local = await createReadySite(t, tenant.testKey);
    await postPreferences(t, local.siteKey, preferencesBody(local));
    await t.http.post(`/v1/channels/${local.channelId}/purposes`, {
      key: tenant.testKey,
      body: { key: 'video', name: 'Video' },
    });
    const res = await postPreferences(
      t,
      local.siteKey,
      preferencesBody(local, { configVersion: local.configVersion + 1, decisions: { video: 'granted' } }),
    );
    expect(res.status, res.text).toBe(201);
    expect((await evidenceOf(res.body.data.id)).decisions.video).toBe('granted');
  });
});

describe('POST …/preferences: validation', () => {
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['subjectId too short', { subjectId: 'short12' }, '/subjectId'],
    ['subjectId too long', { subjectId: 'x'.repeat(129) }, '/subjectId'],
    ['subjectId missing', { subjectId: undefined }, '/subjectId'],
    ['decisions not an object', { decisions: ['analytics'] }, '/decisions'],
    ['decision value', { decisions: { analytics: 'yes' } }, '/decisions/analytics'],
    ['configVersion missing', { configVersion: undefined }, '/configVersion'],
    ['configVersion not an integer', { configVersion: 1.5 }, '/configVersion'],
    ['configVersion zero', { configVersion: 0 }, '/configVersion'],
    ['configVersion never had', { configVersion: 999 }, '/configVersion'],
    ['source', { source: 'email' }, '/source'],
    ['language', { language: 'english please' }, '/language'],
    ['gpc', { gpc: 'true' }, '/gpc'],
    ['unknown member', { extra: 1 }, '/extra'],
    ['required purpose denied', { decisions: { necessary: 'denied' } }, '/decisions/necessary'],
  ];
  for (const [label, override, path] of invalid) {
    it(`422 validation_failed: ${label}`, async () => {
      const body: Record<string, unknown> = { ...preferencesBody(s), ...override };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
      const problem = expectProblemShape(await post(body), 422, 'validation_failed');
      expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  }

  it('422 unknown_purpose, naming the keys at their paths', async () => {
    const problem = expectProblemShape(
      await post(preferencesBody(s, { decisions: { analytics: 'granted', ads: 'denied' } })),
      422,
      'unknown_purpose',
    );
    expect(problem.errors).toEqual([{ path: '/decisions/ads', message: expect.any(String) }]);
  });

  it('400 malformed_request for bad JSON, 415 for another media type, 413 past 64 KiB', async () => {
    const raw = (rawBody: string, type: string) =>
      t.http.post(`/v1/public/sites/${s.siteKey}/preferences`, {
        rawBody,
        headers: { origin: SITE_ORIGIN, 'content-type': type },
      });
    expectProblemShape(await raw('{"subjectId":', 'application/json'), 400, 'malformed_request');
    expectProblemShape(
      await raw('subjectId=x', 'application/x-www-form-urlencoded'),
      415,
      'unsupported_media_type',
    );
    expectProblemShape(
      await raw(JSON.stringify({ x: 'y'.repeat(70_000) }), 'application/json'),
      413,
      'payload_too_large',
    );
  });
});

describe('POST …/preferences: origins and CORS', () => {
  it('registered origins (exact and wildcard) get CORS headers on success and on errors', async () => {
    for (const origin of [SITE_ORIGIN, WILDCARD_MATCH]) {
      const res = await post(preferencesBody(s), { origin });
      expect(res.status).toBe(201);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-expose-headers')).toBe('x-request-id, idempotent-replayed');
      expect(res.headers.get('vary')).toMatch(/origin/i);
    }
    const invalid = await post(preferencesBody(s, { subjectId: 'x' }), { origin: WILDCARD_MATCH });
    expectProblemShape(invalid, 422, 'validation_failed');
    expect(invalid.headers.get('access-control-allow-origin')).toBe(WILDCARD_MATCH);
  });

  it('403 origin_not_allowed for a foreign, malformed or missing Origin, without CORS headers, audited', async () => {
    for (const origin of [
      'https://evil.example.net',
      'http://shop.example.com',
      'https://shop.example.com:8443',
      'https://a.b.example.org',
      'https://example.org',
      'null',
      'not a url',
      null,
    ]) {
      const res = await post(preferencesBody(s), { origin });
      expectProblemShape(res, 403, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin'), String(origin)).toBeNull();
    }
    const audit = await t.http.get('/v1/audit-logs?action=auth.denied&limit=100', { key: tenant.testKey });
    const denied = audit.body.data.filter(
      (e: { target: { id: string } | null }) => e.target?.id === 'POST /v1/public/sites/:siteKey/preferences',
    );
    // One entry per route and minute, counting the refusals.
    const refusals = denied.reduce((sum: number, e: { count: number }) => sum + e.count, 0);
    expect(refusals).toBeGreaterThanOrEqual(8);
    expect(denied[0]).toMatchObject({
      actor: { type: 'system', id: null },
      environment: 'test',
      ipPrefix: '127.0.0.0/24',
    });
  });

  it('an archived origin is refused from the next request on', async () => {
    const local = await createReadySite(t, tenant.testKey);
    const origins = await t.http.get(`/v1/channels/${local.channelId}/origins`, { key: tenant.testKey });
    const exact = origins.body.data.find((o: { origin: string }) => o.origin === SITE_ORIGIN);
    await t.http.post(`/v1/channels/${local.channelId}/origins/${exact.id}/archive`, { key: tenant.testKey });
    expectProblemShape(
      await postPreferences(t, local.siteKey, preferencesBody(local)),
      403,
      'origin_not_allowed',
    );
  });

  it('preflight: 204 with CORS headers for registered origins; 403 without them for others', async () => {
    const preflight = (origin: string | null) =>
      t.http.request('OPTIONS', `/v1/public/sites/${s.siteKey}/preferences`, {
        headers: {
          ...(origin ? { origin } : {}),
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, idempotency-key',
        },
      });
    for (const origin of [SITE_ORIGIN, WILDCARD_MATCH]) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe(
        'content-type, idempotency-key, x-request-id',
      );
      expect(res.headers.get('access-control-max-age')).toMatch(/^\d+$/);
      expect(res.headers.get('vary')).toMatch(/origin/i);
    }
    for (const origin of ['https://evil.example.net', null]) {
      const res = await preflight(origin);
      expectProblemShape(res, 403, 'origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    }
  });
});

describe('POST …/preferences: Idempotency-Key, scoped to the site', () => {
  it('the same key and body replay the first 201: one event', async () => {
    const body = preferencesBody(s);
    const first = await post(body, { idempotencyKey: 'sdk-retry-1' });
    expect(first.status).toBe(201);
    const replay = await post(body, { idempotencyKey: 'sdk-retry-1' });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('access-control-allow-origin')).toBe(SITE_ORIGIN);
    const events = await t.http.get(`/v1/evidence?subjectId=${encodeURIComponent(body.subjectId)}`, {
      key: tenant.testKey,
    });
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual([first.body.data.id]);
    expectProblemShape(
      await post({ ...body, decisions: {} }, { idempotencyKey: 'sdk-retry-1' }),
      422,
      'idempotency_key_reused',
    );
    // Another site has its own key space.
    const other = await createReadySite(t, tenant.testKey);
    const elsewhere = await postPreferences(
      t,
      other.siteKey,
      preferencesBody(other, { subjectId: body.subjectId }),
      {
        idempotencyKey: 'sdk-retry-1',
      },
    );
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expectProblemShape(await post(body, { idempotencyKey: 'x'.repeat(256) }), 400, 'invalid_idempotency_key');
  });
});

describe('rate limit per site and client address', () => {
  it('429 rate_limited past PUBLIC_RATE_LIMIT_PER_MINUTE, with the rate-limit headers', async () => {
    const limited = await startTestApp({ store: t.store, env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const get = () => limited.http.get(`/v1/public/sites/${s.siteKey}/config`);
      for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
      const res = await get();
      expectProblemShape(res, 429, 'rate_limited');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      // Counted per site: another site from the same address is not limited.
      const other = await createReadySite(t, tenant.testKey);
      expect((await limited.http.get(`/v1/public/sites/${other.siteKey}/config`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
