import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  newSubjectId,
  type ReadySite,
  recordConsent,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * A request that fails on a database error answers 500 and logs one line saying why: the SQLSTATE,
 * the constraint or table when there is one, the route. Never the values the failed query carried:
 * drizzle's error message lists its parameters ("params: …"), and those are a subject's full
 * pseudonym, a site key, an organization's ids. The database errors here are real: a table the
 * query needs is renamed away for the request, then put back.
 */
function captureStream() {
  const lines: Array<Record<string, any>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { stream, lines, raw };
}

let t: TestApp;
let tenant: Tenant;
let site: ReadySite;
const captured = captureStream();

beforeAll(async () => {
  t = await startTestApp({
    env: { ...SITES_TEST_ENV, LOG_LEVEL: 'info' },
    logger: { stream: captured.stream },
  });
  tenant = await t.tenant();
  site = await createReadySite(t, tenant.testKey);
});
afterAll(() => t?.close());

/** Runs `request` while `table` is renamed away, so the query that reads it fails (42P01). */
async function withoutTable<T>(table: string, request: () => Promise<T>): Promise<T> {
  const db = rawSql(t.store);
  await db.execute(sql.raw(`alter table ${table} rename to ${table}_away`));
  try {
    return await request();
  } finally {
    await db.execute(sql.raw(`alter table ${table}_away rename to ${table}`));
  }
}

const linesOf = (requestId: string) => captured.raw.filter((line) => line.includes(`"reqId":"${requestId}"`));

describe('a 5xx caused by a database error', () => {
  it('logs the SQLSTATE and the route, never the parameters: no pseudonym, subject id or site key', async () => {
    const subjectId = newSubjectId();
    const event = await recordConsent(t, site, { subjectId });
    const [{ subject_pseudonym: pseudonym }] = (
      (await rawSql(t.store).execute(
        sql`select subject_pseudonym from evidence_events where id = ${event.id}`,
      )) as unknown as { rows: Array<{ subject_pseudonym: string }> }
    ).rows;
    expect(pseudonym.length).toBeGreaterThan(20);

    const res = await withoutTable('consent_state', () =>
      t.http.get(`/v1/consent-state?channelId=${site.channelId}&subjectId=${encodeURIComponent(subjectId)}`, {
        key: tenant.testKey,
        headers: { 'x-request-id': 'req-db-error-state' },
      }),
    );
    expect(res.status, res.text).toBe(500);
    expect(res.body.code).toBe('internal_error');

    const lines = linesOf('req-db-error-state');
    for (const line of lines) {
      expect(line).not.toContain(pseudonym);
      expect(line).not.toContain(subjectId);
      expect(line).not.toContain(site.siteKey);
      expect(line).not.toMatch(/params:|Failed query/);
    }
    const failed = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
    expect(failed, lines.join('\n')).toMatchObject({
      level: 50,
      sqlstate: '42P01',
      route: '/v1/consent-state',
      method: 'GET',
      code: 'internal_error',
    });
    expect(failed.error).toContain('database error 42P01');
  });

  it('a public route keyed by a site key logs neither the key nor the query that carried it', async () => {
    const other = await createReadySite(t, tenant.testKey);
    // An empty query string leaves the read to Fastify's route, not the fast path (config-fast-path.ts).
    const res = await withoutTable('channels', () =>
      t.http.get(`/v1/public/sites/${other.siteKey}/config?`, {
        headers: { 'x-request-id': 'req-db-error-site', origin: 'https://shop.example.com' },
      }),
    );
    expect(res.status, res.text).toBe(500);
    const lines = linesOf('req-db-error-site');
    for (const line of lines) expect(line).not.toMatch(/params:|Failed query/);
    const failed = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
    // The request's own line shows its URL, site key included (a public name, as in the snippet);
    // the error's line has no business repeating it from the query's parameters.
    expect(JSON.stringify(failed)).not.toContain(other.siteKey);
    expect(failed, lines.join('\n')).toMatchObject({ sqlstate: '42P01', code: 'internal_error' });
  });
});
