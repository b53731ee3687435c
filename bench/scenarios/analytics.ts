import http from 'node:http';
import { analyticsCtes } from '../../src/modules/analytics/analytics.service.ts';
import { sequentialLatency } from '../lib/load.ts';
import type { BenchStore, Fixture } from '../lib/setup.ts';
import type { Latency } from './evidence-page.ts';

/**
 * Scenario h: a one-year `GET /v1/analytics/consent` when the aggregates hold the first
 * `events` seeded events, built by the consent write's own analytics CTEs over those rows (the seed
 * inserts behind the write path's back). The answer reads day aggregates, so its latency should not
 * grow with the number of events behind them.
 */
export async function aggregateSeeded(bench: BenchStore, events: number) {
  const store = await bench.open();
  const query = (text: string) => (store.pool ? store.pool.query(text) : store.pglite!.query(text));
  try {
    await query('delete from consent_analytics_daily');
    await query('delete from consent_analytics_purposes');
    const started = Date.now();
    await query(`with seeded as materialized (
        select * from evidence_events where id <= 'evt_bench${String(events).padStart(12, '0')}'
      ), ${analyticsCtes('seeded')}
      select 1`);
    return { events, seconds: (Date.now() - started) / 1000 };
  } finally {
    await store.close();
  }
}

/** `n` sequential one-year queries (the default interval, day: 366 rows) on one kept-alive connection. */
export async function yearQueries(serviceUrl: string, fixture: Fixture, n: number): Promise<Latency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: `Bearer ${fixture.liveKey}` };
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  const url = `${serviceUrl}/v1/analytics/consent?${new URLSearchParams({ channelId: fixture.channelId, from, to })}`;
  try {
    return await sequentialLatency(n, async () => {
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent, headers }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      if (status !== 200) throw new Error(`GET /v1/analytics/consent: ${status}`);
    });
  } finally {
    agent.destroy();
  }
}
