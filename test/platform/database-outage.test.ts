import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';
import { createTcpProxy } from '../helpers/tcp-proxy.ts';

const databaseUrl = process.env.DATABASE_URL;

describe.skipIf(skipWith(postgresOnly()))(
  'database outage (PostgreSQL only: the embedded store is in-process and cannot become unreachable)',
  () => {
    const target = new URL(databaseUrl ?? 'postgres://localhost');
    const proxy = createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    let port: number;
    let store: Store;
    let t: TestApp;
    let tenant: Tenant;

    beforeAll(async () => {
      port = await proxy.start();
      const viaProxy = new URL(databaseUrl!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(port);
      store = createPostgresStore(viaProxy.toString(), { max: 4 });
      t = await startTestApp({ store, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
      tenant = await t.tenant();
    });
    afterAll(async () => {
      await t?.close();
      await store?.close().catch(() => {});
      await proxy.stop();
    });

    it('answers 503 service_unavailable while the database is unreachable, and recovers by itself', async () => {
      const key = await tenant.key(['api_keys:read', 'api_keys:manage', 'audit:read:limited']);
      expect((await t.http.get('/v1/api-keys', { key: key.secret })).status).toBe(200);

      await proxy.stop();
      const calls = [
        () => t.http.get('/v1/api-keys', { key: key.secret }),
        () => t.http.get(`/v1/api-keys/${key.id}`, { key: key.secret }),
        () =>
          t.http.post('/v1/api-keys', { key: key.secret, body: { name: 'x', scopes: ['api_keys:read'] } }),
        () => t.http.get('/v1/audit-logs', { key: key.secret }),
        () => t.http.get('/readyz'),
      ];
      for (const call of calls) {
        const res = await call();
        const problem = expectProblemShape(res, 503, 'service_unavailable');
        expect(problem.detail).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres|terminated/i);
        expect(res.headers.get('retry-after')).toBeTruthy();
      }
      expect((await t.http.get('/healthz')).status).toBe(200);
      // Readiness names what is down: the primary (there is no replica here).
      expect((await t.http.get('/readyz')).body).toMatchObject({ primary: 'unavailable', replica: 'none' });

      await proxy.start(port);
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await t.http.get('/v1/api-keys', { key: key.secret })).status;
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(200);
      expect((await t.http.get('/readyz')).status).toBe(200);
      const created = await t.http.post('/v1/api-keys', {
        key: key.secret,
        body: { name: 'after', scopes: ['api_keys:read'] },
      });
      expect(created.status).toBe(201);
    });
  },
);
