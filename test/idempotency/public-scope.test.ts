import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditService } from '../../src/modules/audit/audit.service.ts';
import { readRows } from '../../src/platform/db/rows.ts';
import { installErrorHandling } from '../../src/platform/http/error-handler.ts';
import { AppError } from '../../src/platform/http/errors.ts';
import { installIdempotency } from '../../src/platform/idempotency/idempotency.hooks.ts';
import { siteIdempotencyOwner } from '../../src/platform/idempotency/idempotency.scope.ts';
import { rawSql, startTestApp, type TestApp } from '../helpers/app.ts';
import { createClient, expectProblemShape, type HttpClient } from '../helpers/http.ts';

/**
 * The public preferences endpoint is built elsewhere; this proves the opt-in it will use
 * (`config.idempotency.owner` with siteIdempotencyOwner) on a real Fastify app over real HTTP, on
 * the real store: a public route whose handler writes a row per call, keyed per site.
 */
let t: TestApp;
let site: FastifyInstance;
let http: HttpClient;
let organizationId: string;

beforeAll(async () => {
  t = await startTestApp();
  organizationId = (await t.tenant()).organizationId;
  const audit = createAuditService({ clock: t.clock });
  site = Fastify({ logger: false });
  site.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  installErrorHandling(site, { docsUrl: t.config.docsUrl });
  installIdempotency(site, { store: t.store, clock: t.clock, docsUrl: t.config.docsUrl });
  site.post<{ Params: { siteKey: string }; Body: { subjectId: string } }>(
    '/v1/public/sites/:siteKey/preferences',
    {
      config: {
        auth: 'public',
        idempotency: {
          owner: (request) =>
            siteIdempotencyOwner((request.params as { siteKey: string }).siteKey, organizationId, 'live'),
        },
      },
    },
    async (request, reply) => {
      if (request.body.subjectId === 'short')
        throw new AppError('validation_failed', 'subjectId is too short.');
      // A read through the request's scope, or (wrongly) on the pool beside its transaction.
      if (request.body.subjectId === 'reads-scope') await readRows(request.db.read, sql`select 1`);
      if (request.body.subjectId === 'reads-pool') await readRows(t.store.db, sql`select 1`);
      const recordedAt = t.clock.now().toISOString();
      // The idempotency layer hands the handler the transaction its record commits in.
      await request.db.write((tx) =>
        audit.record(
          tx,
          {
            organizationId,
            environment: 'live',
            actor: { type: 'system', id: null },
            requestId: request.id,
            ipPrefix: null,
          },
          { action: 'test.preference', target: { type: 'site', id: request.params.siteKey } },
        ),
      );
      reply.code(201);
      return {
        data: { id: `pref_${Math.random().toString(36).slice(2)}`, recordedAt },
        meta: {},
        error: null,
      };
    },
  );
  // The suite checks /v1 answers against the document their origin serves: this stand-in app
  // documents no operation, so its answers are not checked (only the real service's are).
  site.get('/v1/openapi.json', async () => ({
    openapi: '3.1.0',
    info: { title: 'stand-in', version: '1' },
    paths: {},
  }));
  await site.listen({ port: 0, host: '127.0.0.1' });
  const address = site.server.address();
  http = createClient(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
afterAll(async () => {
  await site.close();
  await t.close();
});

async function rowsFor(siteKey: string): Promise<number> {
  const result = await rawSql(t.store).execute(
    sql`select count(*)::int as n from audit_logs where organization_id = ${organizationId} and target_id = ${siteKey}`,
  );
  return Number((result as unknown as { rows: { n: number }[] }).rows[0].n);
}

const post = (siteKey: string, key: string, subjectId = 'visitor-123456') =>
  http.post(`/v1/public/sites/${siteKey}/preferences`, {
    body: { subjectId },
    headers: { 'idempotency-key': key },
  });

describe('idempotency on a public route, scoped to the site', () => {
  it('replays, refuses a changed body, and keys each site separately', async () => {
    const siteA = `site_a${Date.now()}`;
    const siteB = `site_b${Date.now()}`;
    const first = await post(siteA, 'k-1');
    expect(first.status).toBe(201);
    const replay = await post(siteA, 'k-1');
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectProblemShape(await post(siteA, 'k-1', 'visitor-other'), 422, 'idempotency_key_reused');
    const otherSite = await post(siteB, 'k-1');
    expect(otherSite.status).toBe(201);
    expect(otherSite.headers.get('idempotent-replayed')).toBeNull();
    expect(await rowsFor(siteA)).toBe(1);
    expect(await rowsFor(siteB)).toBe(1);
    const stored = await rawSql(t.store).execute(
      sql`select scope, response_body_encrypted from idempotency_keys where organization_id = ${organizationId} and key = 'k-1' order by scope`,
    );
    expect((stored as unknown as { rows: unknown[] }).rows).toEqual([
      { scope: `site:${siteA}`, response_body_encrypted: false },
      { scope: `site:${siteB}`, response_body_encrypted: false },
    ]);
  });

  it('8 concurrent duplicates write one row', async () => {
    const siteKey = `site_c${Date.now()}`;
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(siteKey, 'k-concurrent')));
    expect(await rowsFor(siteKey)).toBe(1);
    const created = responses.filter((r) => r.status === 201);
    for (const r of created) expect(r.text).toBe(created[0].text);
    for (const r of responses.filter((x) => x.status !== 201))
      expectProblemShape(r, 409, 'idempotency_key_in_use');
  });

  it('stores a 4xx and rejects an invalid key', async () => {
    const siteKey = `site_d${Date.now()}`;
    const first = await post(siteKey, 'k-4xx', 'short');
    expectProblemShape(first, 422, 'validation_failed');
    const again = await post(siteKey, 'k-4xx', 'short');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblemShape(await post(siteKey, 'x'.repeat(256)), 400, 'invalid_idempotency_key');
  });

  it("runs the handler in the record's transaction: request.db reads in it, a read on the pool fails at once", async () => {
    const siteKey = `site_e${Date.now()}`;
    expect((await post(siteKey, 'k-scope', 'reads-scope')).status).toBe(201);
    expect(await rowsFor(siteKey)).toBe(1);
    // On PGlite that read would wait for the request's own transaction forever; the guard refuses it.
    const refused = await post(siteKey, 'k-pool', 'reads-pool');
    expectProblemShape(refused, 500, 'internal_error');
    expect(await rowsFor(siteKey)).toBe(1);
  });
});
