import http from 'node:http';
import { median, sequentialLatency } from '../lib/load.ts';
import type { Fixture } from '../lib/setup.ts';

export type Query = (text: string, params: unknown[]) => Promise<{ rows: any[] }>;

export interface Latency {
  p50Ms: number;
  p99Ms: number;
  n: number;
}

const PAGE = 20;

/**
 * The keyset query `GET /v1/evidence` runs (evidence.repo.ts `list`, no filters), written out:
 * newest first, strictly after the previous page's last (recordedAt, id) as a row comparison (the
 * form that seeks the index; see platform/db/keyset.ts), limit + 1. The service sends it as a
 * prepared statement; here it goes unnamed, as an ad-hoc query would.
 */
const RAW_FIRST_PAGE = `select * from evidence_events
  where organization_id = $1 and environment = $2 and purged_at is null
  order by recorded_at desc, id desc limit ${PAGE + 1}`;
const RAW_NEXT_PAGE = `select * from evidence_events
  where organization_id = $1 and environment = $2 and purged_at is null
    and (recorded_at, id) < ($3::timestamptz, $4)
  order by recorded_at desc, id desc limit ${PAGE + 1}`;

/** `pages` sequential pages of the raw query, each after the last row of the one before. */
export function rawWalk(query: Query, fixture: Fixture, pages: number): Promise<Latency> {
  let after: { t: Date; id: string } | null = null;
  return sequentialLatency(pages, async () => {
    const { rows } = after
      ? await query(RAW_NEXT_PAGE, [fixture.organizationId, fixture.environment, after.t, after.id])
      : await query(RAW_FIRST_PAGE, [fixture.organizationId, fixture.environment]);
    const last = rows[PAGE - 1];
    after = { t: last.recorded_at, id: last.id };
  });
}

/**
 * One GET on a kept-alive connection, the body parsed as JSON. node:http rather than fetch: the
 * raw side's client is pg, a thin one, and undici's fetch adds about half a millisecond per call
 * here, which would be charged to the service.
 */
function getJson(agent: http.Agent, url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The same walk over HTTP: `GET /v1/evidence?limit=20` then its nextCursor, page after page. */
export async function serviceWalk(serviceUrl: string, fixture: Fixture, pages: number): Promise<Latency> {
  let cursor: string | null = null;
  const headers = { authorization: `Bearer ${fixture.liveKey}` };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await sequentialLatency(pages, async () => {
      const url = `${serviceUrl}/v1/evidence?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await getJson(agent, url, headers);
      if (res.status !== 200) throw new Error(`GET /v1/evidence: ${res.status} ${JSON.stringify(res.body)}`);
      cursor = res.body.meta.nextCursor;
    });
  } finally {
    agent.destroy();
  }
}

/** Median p50 and p99 over rounds. */
export function medianLatency(rounds: Latency[]): Latency {
  return {
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    n: rounds.reduce((sum, r) => sum + r.n, 0),
  };
}
