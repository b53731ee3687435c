import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  createReadySite,
  postPreferences,
  preferencesBody,
  type ReadySite,
  SITES_TEST_ENV,
} from '../helpers/sites.ts';

/**
 * A batch of consent writes is one SQL statement, whatever the number of requests in it,
 * and a request adds no statement of its own (no SELECT of its Idempotency-Key before the write).
 * Counted at the driver: every query this process sends to the database (pg's Client.query on
 * PostgreSQL, the PGlite instance's query on the embedded store) while a burst of writes runs.
 */
let t: TestApp;
let s: ReadySite;

interface Sent {
  text: string;
  name: string | undefined;
  values: unknown[] | undefined;
}
let sent: Sent[] | null = null;
let restore: () => void = () => {};

/** Records every statement sent while `sent` is an array. */
function countStatements(app: TestApp) {
  const record = (text: unknown, values: unknown) => {
    if (!sent) return;
    const config = typeof text === 'object' && text !== null ? (text as Record<string, unknown>) : null;
    sent.push({
      text: String(config ? config.text : text),
      name: config ? (config.name as string | undefined) : undefined,
      values: (config ? config.values : values) as unknown[] | undefined,
    });
  };
  if (app.store.pglite) {
    const pglite = app.store.pglite;
    const original = pglite.query.bind(pglite);
    pglite.query = ((text: string, values?: unknown[], options?: never) => {
      record(text, values);
      return original(text, values, options);
    }) as typeof pglite.query;
    restore = () => {
      pglite.query = original;
    };
    return;
  }
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    record(args[0], args[1]);
    return original.apply(this, args);
  };
  restore = () => {
    proto.query = original;
  };
}

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  const tenant = await t.tenant();
  s = await createReadySite(t, tenant.testKey);
  // One write first: the site is cached and the statement prepared before counting starts.
  expect((await postPreferences(t, s.siteKey, preferencesBody(s))).status).toBe(201);
  countStatements(t);
});
afterAll(async () => {
  restore();
  await t.close();
});

const isConsentWrite = (statement: Sent) => statement.text.startsWith('-- consent write');
/**
 * The batch's events: how many ids its event id column ($14) holds, an array on PGlite, an array
 * literal on PostgreSQL (textArrayLiteral; ids hold no comma).
 */
const eventsIn = (statement: Sent) => {
  const ids = (statement.values ?? [])[13] as unknown[] | string;
  if (Array.isArray(ids)) return ids.length;
  return ids === '{}' ? 0 : ids.split(',').length;
};

describe('consent writes: statements per batch', () => {
  it('64 concurrent writes, half with an Idempotency-Key: one statement per batch, none per request', async () => {
    const n = 64;
    sent = [];
    const responses = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        postPreferences(t, s.siteKey, preferencesBody(s), i % 2 === 0 ? { idempotencyKey: `stmt-${i}` } : {}),
      ),
    );
    const statements = sent;
    sent = null;
    for (const res of responses) expect(res.status, res.text).toBe(201);

    const writes = statements.filter(isConsentWrite);
    // Every acknowledged event went in exactly one consent write statement…
    expect(writes.reduce((sum, statement) => sum + eventsIn(statement), 0)).toBe(n);
    // …and no request had more than one: at most one statement per request, fewer when requests
    // arrived while a batch was committing (how many do depends on timing, not asserted).
    expect(writes.length).toBeGreaterThanOrEqual(1);
    expect(writes.length).toBeLessThanOrEqual(n);
    // No other statement touched the write path's tables during the burst: no SELECT of a key, no
    // separate INSERT of events, records, outbox rows, and no BEGIN/COMMIT around them.
    const others = statements.filter((statement) => !isConsentWrite(statement));
    const writePath = /idempotency_keys|evidence_events|webhook_|ledger_pending|^\s*(begin|commit)/i;
    expect(others.filter((statement) => writePath.test(statement.text)).map((x) => x.text)).toEqual([]);
    // On PostgreSQL the statement is a named (prepared) one, the same for every batch.
    if (t.store.kind === 'postgres') {
      expect(new Set(writes.map((statement) => statement.name)).size).toBe(1);
      expect(writes[0].name).toMatch(/^consent_write_/);
    }
    process.stderr.write(
      `consent writes: ${n} requests → ${writes.length} statement(s) (${writes.map(eventsIn).join(', ')} events); ${others.length} other statement(s) meanwhile\n`,
    );
  });

  it('a duplicate key in a batch writes one event and replays the first response', async () => {
    const body = preferencesBody(s);
    sent = [];
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        postPreferences(t, s.siteKey, body, { idempotencyKey: 'stmt-duplicate' }),
      ),
    );
    const statements = sent;
    sent = null;
    for (const res of responses) expect(res.status, res.text).toBe(201);
    expect(new Set(responses.map((res) => res.body.data.id)).size).toBe(1);
    expect(responses.filter((res) => res.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    // The losers read the winner's record once each to replay it: the only reads, after the write.
    const reads = statements.filter((statement) => /from "idempotency_keys"/i.test(statement.text));
    expect(reads.length).toBeLessThanOrEqual(5);
  });

  it('a key whose record expired (not yet purged) is free again: the next write records anew', async () => {
    const first = await postPreferences(t, s.siteKey, preferencesBody(s), {
      idempotencyKey: 'stmt-expiring',
    });
    expect(first.status, first.text).toBe(201);
    t.clock.advance(24 * 3600_000 + 1000);
    // Another body under the same key: a live record would refuse it (422), an expired one frees the key.
    const again = await postPreferences(t, s.siteKey, preferencesBody(s), {
      idempotencyKey: 'stmt-expiring',
    });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.data.id).not.toBe(first.body.data.id);
    const replayed = await postPreferences(t, s.siteKey, preferencesBody(s), {
      idempotencyKey: 'stmt-expiring',
    });
    expect(replayed.status).toBe(422);
  });
});
