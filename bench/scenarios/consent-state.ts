import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createConsentStateReader } from '../../src/modules/evidence/consent-state.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { sequentialLatency } from '../lib/load.ts';
import { type BenchStore, type Fixture, SITE_ORIGIN } from '../lib/setup.ts';
import type { Latency, Query } from './evidence-page.ts';

/**
 * Scenario g: the consent state of the seeded database, built by the backfill as a
 * database from before the state table would have it built (timed), then one
 * subject's state read through `GET /v1/consent-state` against the raw indexed select of the same
 * rows (the primary key of consent_state), sequentially, one at a time.
 */
export async function backfillSeeded(bench: BenchStore) {
  const store = await bench.open();
  try {
    // The seed inserted its events behind the consent write's back, as a database older than
    // migration 0019 holds them: mark the backfill to do, and run it as the worker does.
    const query = (text: string) => (store.pool ? store.pool.query(text) : store.pglite!.query(text));
    await query(
      'update consent_state_backfill set done_at = null, after_organization_id = null, after_id = null, events = 0',
    );
    const reader = createConsentStateReader({
      store,
      clock: systemClock,
      pseudonymize: () => Promise.reject(new Error('not used by the backfill')),
      findChannel: () => Promise.reject(new Error('not used by the backfill')),
    });
    const started = Date.now();
    const { events } = await reader.backfill();
    const seconds = (Date.now() - started) / 1000;
    return { events, seconds, eventsPerSec: events / seconds };
  } finally {
    await store.close();
  }
}

const SUBJECTS = 1000;
const subjectId = (i: number) => `bench-subject-${i}`;

/** Records one decision for each of SUBJECTS visitors through the service (their state rows are its). */
export async function recordSubjects(serviceUrl: string, fixture: Fixture) {
  for (let i = 0; i < SUBJECTS; i++) {
    const res = await fetch(`${serviceUrl}/v1/public/sites/${fixture.siteKey}/preferences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SITE_ORIGIN },
      body: JSON.stringify({
        subjectId: subjectId(i),
        decisions: { analytics: i % 2 ? 'granted' : 'denied', marketing: 'denied' },
        configVersion: fixture.configVersion,
      }),
    });
    if (res.status !== 201) throw new Error(`preferences: ${res.status} ${await res.text()}`);
  }
}

/** The raw side: the state rows of one subject by primary key, as a pg client would select them. */
export async function rawLookups(
  query: Query,
  fixture: Fixture,
  pseudonymSecret: Buffer,
  n: number,
): Promise<Latency> {
  const pseudonym = (i: number) =>
    `psn_${createHmac('sha256', pseudonymSecret).update(subjectId(i), 'utf8').digest('hex')}`;
  return sequentialLatency(n, async (i) => {
    const { rows } = await query(
      `select * from consent_state where organization_id = $1 and channel_id = $2 and subject_pseudonym = $3`,
      [fixture.organizationId, fixture.channelId, pseudonym(i % SUBJECTS)],
    );
    if (rows.length === 0) throw new Error('raw lookup: no state rows');
  });
}

/** The service side: `GET /v1/consent-state` on one kept-alive connection. */
export async function serviceLookups(serviceUrl: string, fixture: Fixture, n: number): Promise<Latency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: `Bearer ${fixture.liveKey}` };
  try {
    return await sequentialLatency(n, async (i) => {
      const query = new URLSearchParams({ channelId: fixture.channelId, subjectId: subjectId(i % SUBJECTS) });
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(`${serviceUrl}/v1/consent-state?${query}`, { agent, headers }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      if (status !== 200) throw new Error(`GET /v1/consent-state: ${status}`);
    });
  } finally {
    agent.destroy();
  }
}
