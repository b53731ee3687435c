import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, type Store } from '../../src/platform/db/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';
import { postgresOnly, skipWith } from '../helpers/skip.ts';
import { createTcpProxy } from '../helpers/tcp-proxy.ts';

const databaseUrl = process.env.DATABASE_URL;

/** Sends `count` consent writes `concurrency` at a time; returns every status (0: no answer). */
async function burst(
  t: TestApp,
  site: ReadySite,
  count: number,
  concurrency: number,
  midway?: () => Promise<void>,
) {
  const statuses: number[] = [];
  let sent = 0;
  let fired = false;
  const worker = async () => {
    while (sent < count) {
      sent++;
      if (midway && !fired && sent >= count / 3) {
        fired = true;
        await midway();
      }
      const res = await postPreferences(t, site.siteKey, preferencesBody(site)).catch(() => ({ status: 0 }));
      statuses.push(res.status);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

describe.skipIf(skipWith(postgresOnly()))(
  'the database going away during a burst of consent writes (PostgreSQL only: the embedded store is in-process)',
  () => {
    const target = new URL(databaseUrl ?? 'postgres://localhost');
    const proxy = createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    let port: number;
    let store: Store;
    let t: TestApp;
    let site: ReadySite;

    beforeAll(async () => {
      port = await proxy.start();
      const viaProxy = new URL(databaseUrl!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(port);
      store = createPostgresStore(viaProxy.toString(), { max: 4 });
      t = await startTestApp({ store, env: SITES_TEST_ENV });
      const tenant = await t.tenant();
      site = await createReadySite(t, tenant.liveKey);
    });
    afterAll(async () => {
      await t?.close();
      await store?.close().catch(() => {});
      await proxy.stop();
    });

    it('answers 201 or 503 service_unavailable (never another 5xx), /readyz 503, and recovers without a restart', async () => {
      const during = await burst(t, site, 120, 8, () => proxy.stop());
      expect(during.filter((s) => s !== 201 && s !== 503)).toEqual([]);
      expect(during).toContain(503);

      const down = await postPreferences(t, site.siteKey, preferencesBody(site));
      expectProblemShape(down, 503, 'service_unavailable');
      expect(down.headers.get('retry-after')).toBeTruthy();
      expectProblemShape(await t.http.get('/readyz'), 503, 'service_unavailable');
      expect((await t.http.get('/healthz')).status).toBe(200);

      await proxy.start(port);
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await postPreferences(t, site.siteKey, preferencesBody(site))).status;
        if (status === 201) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(201);
      expect((await t.http.get('/readyz')).status).toBe(200);
      const after = await burst(t, site, 40, 8);
      expect(after.every((s) => s === 201)).toBe(true);
      // No connection was lost for good: every pooled client is back (a leaked one hangs pool.end()).
      expect(store.pool!.idleCount).toBe(store.pool!.totalCount);
    }, 60_000);
  },
);
