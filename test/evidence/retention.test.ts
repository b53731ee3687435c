import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSql, startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { expectProblemShape } from '../helpers/http.ts';
import { createReadySite, recordConsent, SITES_TEST_ENV } from '../helpers/sites.ts';

/**
 * The retention purge (test evidence after a day, live after retentionDays), driven by the manual clock.
 * Events are recorded with the clock set into the past and purged at the real present, so a purge here never
 * reaches events that other test files sharing the PostgreSQL database record at the present.
 */
let t: TestApp;
let tenant: Tenant;
const HOUR = 3600_000;

beforeAll(async () => {
  t = await startTestApp({ env: SITES_TEST_ENV });
  tenant = await t.tenant();
});
afterAll(() => t.close());

async function storedRow(id: string) {
  const result = await rawSql(t.store).execute(sql`select * from evidence_events where id = ${id}`);
  return (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0];
}

/** The leaf hash (hex) the ledger holds for an event, if sealed. */
async function leafOf(id: string) {
  const result = await rawSql(t.store).execute(
    sql`select encode(leaf_hash, 'hex') as hash from ledger_leaves where event_id = ${id}`,
  );
  return (result as unknown as { rows: Array<{ hash: string }> }).rows[0]?.hash;
}

const visible = async (id: string, key: string) =>
  (await t.http.get(`/v1/evidence/${id}`, { key })).status === 200;

describe('evidence.retention', () => {
  it('purges test evidence older than 24 h and live evidence past its channel retentionDays', async () => {
    const present = t.clock.now();
    const testSite = await createReadySite(t, tenant.testKey);
    const shortLive = await createReadySite(t, tenant.liveKey, { retentionDays: 1 });
    const longLive = await createReadySite(t, tenant.liveKey, { retentionDays: 3 });

    // The hours of the last day get their partitions (the worker makes them only ahead of the present).
    await rawSql(t.store).execute(sql`select evidence_partitions_ensure('test',
      ${new Date(present.getTime() - 26 * HOUR).toISOString()}::timestamptz, ${present.toISOString()}::timestamptz)`);
    const receipts = new Map<string, string>();
    const at = async (hoursAgo: number, site: typeof testSite, subjectId?: string) => {
      t.clock.set(new Date(present.getTime() - hoursAgo * HOUR));
      const data = await recordConsent(t, site, subjectId ? { subjectId } : {});
      receipts.set(data.id, data.receipt.hash);
      return data.id as string;
    };
    const testOld = await at(25, testSite, 'visitor-old');
    const testRecent = await at(23, testSite);
    const shortOld = await at(25, shortLive);
    const shortRecent = await at(23, shortLive);
    const longOld = await at(69, longLive);
    const longOlder = await at(73, longLive);
    t.clock.set(present);
    const stateOf = (subjectId: string) =>
      t.http.get(`/v1/consent-state?${new URLSearchParams({ channelId: testSite.channelId, subjectId })}`, {
        key: tenant.testKey,
      });
    expect((await stateOf('visitor-old')).status).toBe(200);

    await t.worker.runDue();

    expect(await visible(testOld, tenant.testKey)).toBe(false);
    expect(await visible(testRecent, tenant.testKey)).toBe(true);
    expect(await visible(shortOld, tenant.liveKey)).toBe(false);
    expect(await visible(shortRecent, tenant.liveKey)).toBe(true);
    expect(await visible(longOld, tenant.liveKey)).toBe(true);
    expect(await visible(longOlder, tenant.liveKey)).toBe(false);

    const liveList = await t.http.get(`/v1/evidence?channelId=${shortLive.channelId}`, {
      key: tenant.liveKey,
    });
    expect(liveList.body.data.map((e: { id: string }) => e.id)).toEqual([shortRecent]);
    expectProblemShape(
      await t.http.get(`/v1/evidence/${testOld}`, { key: tenant.testKey }),
      404,
      'not_found',
    );

    // Test events live in hourly partitions: testOld's hour was dropped whole, row and all, and the
    // consent state forgot the event (its subject had no other decision).
    expect(await storedRow(testOld)).toBeUndefined();
    expect(await storedRow(testRecent)).toBeDefined();
    expect((await stateOf('visitor-old')).status).toBe(404);
    // The ledger keeps every leaf hash: the dropped event's leaf is still in its log, and consistency
    // proofs between tree heads before and after keep answering.
    for (let attempt = 0; attempt < 10 && !(await leafOf(testOld)); attempt++) {
      t.clock.advance(5_000);
      await t.worker.runDue();
    }
    expect(await leafOf(testOld)).toBe(receipts.get(testOld));
    const heads = await t.http.get('/v1/evidence/tree-heads', { key: tenant.testKey });
    expect(heads.status).toBe(200);

    // The task is recurring: two hours later it runs again and drops or purges what has aged since
    // (a test event goes with its hour, so at most 25 hours after it was recorded, plus the job's hour).
    t.clock.advance(2 * HOUR);
    await t.worker.runDue();
    expect(await visible(testRecent, tenant.testKey)).toBe(false);
    expect(await visible(shortRecent, tenant.liveKey)).toBe(false);
    expect(await visible(longOld, tenant.liveKey)).toBe(true);
  }, 90_000); // several worker runs, each making and dropping partitions

  it('works in bounded batches: more events than one batch are all purged in one run', async () => {
    const { PURGE_BATCH, purgeExpiredEvidence } = await import('../../src/modules/evidence/retention.ts');
    const site = await createReadySite(t, tenant.testKey);
    // Rows straight into the table (the HTTP path would take minutes here), as old as the purge needs;
    // their receipt hashes are well-formed, since the ledger's insert trigger queues them for sealing.
    const old = new Date(t.clock.now().getTime() - 48 * HOUR).toISOString();
    await rawSql(t.store).execute(sql`
      insert into evidence_events (organization_id, id, environment, channel_id, subject_pseudonym, decisions,
        config_version, policy_version, source, gpc, recorded_at, receipt_hash)
      select ${tenant.organizationId}, 'evt_batch' || g, 'test', ${site.channelId}, 'psn_' || md5(g::text),
        '{}'::jsonb, 1, '1', 'banner', false, ${old}::timestamptz, encode(sha256(g::text::bytea), 'hex')
      from generate_series(1, ${PURGE_BATCH + 7}) g`);
    const result = await purgeExpiredEvidence({ store: t.store, clock: t.clock });
    expect(result.test).toBeGreaterThanOrEqual(PURGE_BATCH + 7);
    const left = await rawSql(t.store).execute(
      sql`select count(*)::int as n from evidence_events where channel_id = ${site.channelId} and purged_at is null`,
    );
    expect((left as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(0);
  });

  it('drops a live month once every channel with events there has outlived it, and purges rows of a shorter one before', async () => {
    const { purgeExpiredEvidence } = await import('../../src/modules/evidence/retention.ts');
    const present = t.clock.now();
    const short = await createReadySite(t, tenant.liveKey, { retentionDays: 1 });
    const long = await createReadySite(t, tenant.liveKey, { retentionDays: 3650 });
    // Four months back: before the partitions made so far, so the events wait in the DEFAULT partition.
    const then = new Date(present.getTime() - 120 * 24 * HOUR);
    t.clock.set(then);
    const shortEvent = (await recordConsent(t, short)).id as string;
    const longEvent = (await recordConsent(t, long)).id as string;
    t.clock.set(present);
    // Making the month's partition moves them out of the DEFAULT partition into it.
    const made = await rawSql(t.store).execute(
      sql`select evidence_partition_create('live', ${then.toISOString()}::timestamptz) as name`,
    );
    const month = (made as unknown as { rows: Array<{ name: string }> }).rows[0].name;
    const inMonth = async () =>
      (
        (await rawSql(t.store).execute(sql.raw(`select id from ${month} order by id`))) as unknown as {
          rows: Array<{ id: string }>;
        }
      ).rows.map((r) => r.id);
    expect(await inMonth()).toEqual([shortEvent, longEvent].sort());

    // The long channel keeps the month: the short channel's event is purged row by row.
    let result = await purgeExpiredEvidence({ store: t.store, clock: t.clock });
    expect(result.droppedPartitions).not.toContain(month);
    expect(await visible(shortEvent, tenant.liveKey)).toBe(false);
    expect(await visible(longEvent, tenant.liveKey)).toBe(true);

    // Once the long channel keeps less, the month goes whole.
    const patched = await t.http.patch(`/v1/channels/${long.channelId}`, {
      key: tenant.liveKey,
      body: { privacyPolicy: { retentionDays: 30 } },
    });
    expect(patched.status, patched.text).toBe(200);
    result = await purgeExpiredEvidence({ store: t.store, clock: t.clock });
    expect(result.droppedPartitions).toContain(month);
    expect(await storedRow(longEvent)).toBeUndefined();
    expect(await visible(longEvent, tenant.liveKey)).toBe(false);
  });
});
